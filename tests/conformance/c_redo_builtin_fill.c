/* A zero fill of a small constant length in a transaction_safe function: at -O2 GCC 12 turns the
 * loop into a memset and expands it inline as two plain SSE stores (pxor, movups) in the clone,
 * where 128 bytes and more become `rep stos` (c_wt_inline_fill) and unknown lengths a memset
 * call (c_wt_memset_loop, taken into the transaction by tmkit). After the transaction wrote the
 * bytes through barriers, a redo log reads its own values back instead of the zeros, and writes
 * them over the zeros at commit. `tmkit check` reports such plain stores when they go to the
 * program's global data, as here (kind `global`: GCC instruments every other access to globals
 * in a clone); through a pointer they look like the plain stores GCC makes legitimately in
 * clones (to memory the transaction allocated), and nothing reports them. The runtime does
 * not refuse the program (inlined transaction_pure code makes the same accesses, harmless as
 * often as not): NOrec and orec_lazy fail this at -O2, the write-through algorithms and libitm
 * pass (docs/algorithms.md, "Redo logs and programs written for libitm";
 * -fno-tree-loop-distribute-patterns keeps such loops instrumented). */
// TMTEST: fails=norec,orec_lazy@O2:a small fill GCC inlines as plain stores, which the runtime does not refuse
#include "harness.h"

static char rec[48];

__attribute__((transaction_safe, noinline)) static void clear_head(char *p)
{
    for (int i = 0; i < 32; i++)
        p[i] = 0;
}

int main(void)
{
    th_check_runtime();
    for (int round = 1; round <= 10; round++) {
        long seen = 0;
        __transaction_atomic {
            for (int i = 0; i < 48; i++)
                rec[i] = (char)(round + i);
            clear_head(rec);
            for (int i = 0; i < 48; i++)
                seen += rec[i];
        }
        for (int i = 0; i < 32; i++)
            CHECK_EQ(rec[i], 0);
        long want = 0;
        for (int i = 32; i < 48; i++)
            want += (char)(round + i);
        CHECK_EQ(seen, want);
    }
    puts("c_redo_builtin_fill: ok");
    return 0;
}

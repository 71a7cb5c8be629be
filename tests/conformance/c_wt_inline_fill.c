/* A fill of constant length in a transaction_safe function: at -O2 GCC 12 turns the loop into
 * `rep stos` inside the clone, a plain store no runtime can see. After the transaction wrote the
 * words through barriers, a redo log writes its values back over the fill at commit. NOrec and
 * orec_lazy fail this at -O2 (the default never uses them); at -O0 the loop stays instrumented. */
// TMTEST: refused=norec,orec_lazy@O2:a fill inlined as rep stos (plain stores)
#include "harness.h"

static long slots[64];

__attribute__((transaction_safe, noinline)) static void clear_all(long *p)
{
    for (int i = 0; i < 64; i++)
        p[i] = 0;
}

int main(void)
{
    th_check_runtime();
    for (int round = 1; round <= 10; round++) {
        long seen = 0;
        __transaction_atomic {
            for (int i = 0; i < 64; i++)
                slots[i] = round * 100 + i;
            clear_all(slots);
            for (int i = 0; i < 64; i++)
                seen += slots[i];
        }
        for (int i = 0; i < 64; i++)
            CHECK_EQ(slots[i], 0);
        CHECK_EQ(seen, 0);
    }
    puts("ok");
    return 0;
}

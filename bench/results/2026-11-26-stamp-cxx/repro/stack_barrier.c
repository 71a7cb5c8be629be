/* tmkit reproduction (our own code). A transaction_safe function fills a local struct through
 * an inlined transaction_safe helper that takes its address, then returns the struct. GCC 12
 * -O2 -fgnu-tm compiles the function's transactional clone (_ZGTt4need) so that it stores the
 * members into its own stack frame through write barriers (_ITM_WU1, _ITM_WU8) and then loads
 * them with plain movs into the return registers. A write-through runtime (system libitm,
 * tmkit's default, gl_wt, orec_eager, serialirr) stores in place, so the loads see the values.
 * tmkit's redo-log algorithms (norec, orec_lazy) buffer the stores, so the loads see whatever
 * the stack held and the caller gets a wrong answer: single thread, no conflicts, no pure code,
 * no inlined rep movs, and `tmkit check` reports the binary safe.
 *
 * need() is in its own file, so the caller's instrumented path calls the clone.
 *
 *   gcc-12 -O2 -fgnu-tm stack_barrier.c stack_barrier_fn.c -o stack_barrier
 *   ./stack_barrier                                                  -> ok
 *   LD_LIBRARY_PATH=$TMKIT/lib TMKIT_ALGO=norec ./stack_barrier      -> FAIL (exit 1)
 *   LD_LIBRARY_PATH=$TMKIT/lib TMKIT_ALGO=orec_lazy ./stack_barrier  -> FAIL (exit 1)
 */
#include <stdio.h>

#include "stack_barrier.h"

/* leave bytes that are neither 0 nor 1 where need()'s frame will be */
__attribute__((noinline)) static void dirty_stack(void)
{
    volatile unsigned char junk[256];
    for (int i = 0; i < 256; i++)
        junk[i] = 0x10;
    (void)junk[0];
}

int main(void)
{
    long wrong = 0;
    for (long i = 0; i < 1000; i++) {
        dirty_stack();
        answer a;
        __transaction_atomic {
            a = need(i);
        }
        bool want = i > 10;
        if (a.big != want || a.twice != (want ? 2 * i : 0)) {
            if (wrong < 3)
                printf("need(%ld) = {%d, %ld}, want {%d, %ld}\n", i, (int)*(unsigned char *)&a.big,
                       a.twice, (int)want, want ? 2 * i : 0);
            wrong++;
        }
    }
    printf("%s: %ld of 1000 answers wrong\n", wrong ? "FAIL" : "ok", wrong);
    return wrong != 0;
}

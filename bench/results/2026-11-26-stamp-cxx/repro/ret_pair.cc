// tmkit reproduction (our own code): a transaction_safe function that returns a small
// aggregate built by a transaction_safe constructor. GCC 12 -O2 -fgnu-tm compiles the
// function's transactional clone (_ZGTt4needl) so that it stores one member of the
// temporary on its own stack frame through a write barrier (_ITM_WU1) and then loads it
// back with a plain mov for the return registers. Under a redo log (norec, orec_lazy) the
// barrier buffers the byte, the plain load sees whatever the stack held before, and the
// caller gets a wrong answer. Write-through runtimes (libitm, tmkit gl_wt, orec_eager,
// serialirr, the default) store the byte in place and are right.
//
// Build: g++-12 -O2 -fgnu-tm ret_pair.cc ret_pair_fn.cc -o ret_pair
// Run:   ./ret_pair                                  (system libitm: ok)
//        LD_LIBRARY_PATH=<tmkit>/lib TMKIT_ALGO=norec ./ret_pair   (wrong)
#include <cstdio>
#include "ret_pair.h"

__attribute__((noinline)) static void dirty_stack()
{
    // leave non-zero, non-one bytes where the callee's temporary will live
    volatile unsigned char junk[256];
    for (int i = 0; i < 256; i++)
        junk[i] = 0x10;
    (void)junk[0];
}

int main()
{
    long wrong = 0;
    for (long i = 0; i < 1000; i++) {
        dirty_stack();
        bool got;
        long n;
        __transaction_atomic {
            P p = need(i);
            got = p.first;
            n = p.second;
        }
        bool want = i > 10;
        if (got != want || n != (want ? 2 * i : 0)) {
            if (wrong < 3)
                printf("i=%ld: first=%d second=%ld, want %d %ld\n", i, (int)(unsigned char)got, n,
                       (int)want, want ? 2 * i : 0);
            wrong++;
        }
    }
    printf("%s: %ld of 1000 wrong\n", wrong ? "FAIL" : "ok", wrong);
    return wrong != 0;
}

/* A fill loop of run-time length in a transaction_safe function becomes a plain memset call at
 * -O2 (loop distribution, after the TM pass). Both sides of the write-through expectation:
 *  - the fill overwrites bytes the transaction wrote through barriers before: after commit they
 *    hold the fill, not the earlier values (a redo log would write those back over the fill);
 *  - the transaction reads the filled bytes back through barriers and sees the fill.
 * tmkit sees the call (abi/interpose.c) under every algorithm. */
#include "harness.h"

#define N 256
static char buf[N];

__attribute__((transaction_safe, noinline)) void fill(char *p, size_t n, char c)
{
    for (size_t i = 0; i < n; i++)
        p[i] = c; /* becomes memset(p, c, n) */
}

int main(void)
{
    th_check_runtime();
    for (int round = 0; round < 16; round++) {
        size_t n = 8 + (size_t)round * 13, seen = 0;
        char c = (char)('A' + round);
        memset(buf, '.', sizeof buf);
        __transaction_atomic {
            for (size_t i = 0; i < n + 8; i++)
                buf[i] = (char)('a' + (i & 7)); /* through barriers (a constant would become a
                                                   memset too), then partly overwritten */
            fill(buf, n, c);
            for (size_t i = 0; i < n; i++)
                seen += buf[i] == c;
        }
        CHECK_EQ(seen, n);
        for (size_t i = 0; i < n; i++)
            CHECK_EQ(buf[i], c);
        for (size_t i = n; i < n + 8; i++)
            CHECK_EQ(buf[i], 'a' + (i & 7));
        for (size_t i = n + 8; i < N; i++)
            CHECK_EQ(buf[i], '.');
    }
    puts("ok");
    return 0;
}

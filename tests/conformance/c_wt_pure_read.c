/* transaction_pure code that reads memory the transaction wrote through barriers (a checksum or
 * a parser wrapped as pure, as servers do with libc calls): under libitm's write-through methods
 * it sees the transaction's bytes; under a redo log it sees the memory from before the
 * transaction. A redo-log algorithm cannot see such reads: NOrec and orec_lazy fail this (the
 * default never uses them). */
// TMTEST: fails=norec,orec_lazy:pure code cannot be seen by a redo log
#include "harness.h"

static unsigned char msg[128];

__attribute__((transaction_pure, noinline)) static unsigned sum(const unsigned char *p, size_t n)
{
    unsigned s = 0;
    for (size_t i = 0; i < n; i++)
        s = s * 31 + p[i];
    return s;
}

static unsigned sum_plain(const unsigned char *p, size_t n)
{
    unsigned s = 0;
    for (size_t i = 0; i < n; i++)
        s = s * 31 + p[i];
    return s;
}

int main(void)
{
    th_check_runtime();
    for (int round = 0; round < 20; round++) {
        unsigned got, want;
        size_t n = 16 + (size_t)round * 5;
        __transaction_atomic {
            for (size_t i = 0; i < n; i++)
                msg[i] = (unsigned char)(round * 3 + i * 7);
            got = sum(msg, n);
        }
        want = sum_plain(msg, n);
        if (got != want) {
            fprintf(stderr, "round %d: the pure function saw %u, memory after commit gives %u\n",
                    round, got, want);
            return 1;
        }
    }
    puts("ok");
    return 0;
}

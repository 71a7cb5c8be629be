/* A copy loop in a transaction_safe function becomes a plain memcpy call at -O2 (GCC 12's loop
 * distribution runs after the TM pass, so the call is not instrumented). Programs written for
 * libitm, whose methods write in place, get what they expect: the copy reads the values the
 * transaction wrote before it. Under a redo log the copy would read the old memory; tmkit sees
 * the call (abi/interpose.c) and runs the rest of such an attempt with its writes in memory.
 * Also a cancelled transaction leaves no trace of the copy, and the copy's result is read back
 * through barriers inside the transaction. bench/README and docs/algorithms.md ("Redo logs and
 * programs written for libitm") explain the hazard; tests/unit/test_wt_codegen.sh checks that
 * GCC still emits the call. */
#include "harness.h"

#define N 64
static long shared[N];
static long *copies[8];

/* becomes: p = malloc(...); memcpy(p, src, n * 8) */
__attribute__((transaction_safe, noinline)) long *dup_array(const long *src, long n)
{
    long *p = (long *)malloc((size_t)n * sizeof *p);
    if (p)
        for (long i = 0; i < n; i++)
            p[i] = src[i];
    return p;
}

int main(void)
{
    th_check_runtime();
    for (int round = 0; round < 8; round++) {
        long n = 4 + round * 8, sum = 0;
        long *copy;
        __transaction_atomic {
            for (long i = 0; i < n; i++)
                shared[i] = 100 * round + i;
            copy = dup_array(shared, n);
            for (long i = 0; i < n; i++)
                sum += copy[i]; /* through barriers: the copy's bytes, in this transaction */
        }
        CHECK(copy != NULL);
        for (long i = 0; i < n; i++)
            CHECK_EQ(copy[i], 100 * round + i);
        CHECK_EQ(sum, 100 * round * n + n * (n - 1) / 2);
        copies[round] = copy;
    }
    /* A cancelled attempt: the writes and the copy's allocation are gone, memory unchanged. */
    long before = shared[3];
    long *copy = NULL;
    __transaction_atomic {
        shared[3] = -1;
        copy = dup_array(shared, 8);
        if (copy[3] == -1)
            __transaction_cancel;
    }
    CHECK_EQ(shared[3], before);
    (void)copy; /* GCC may keep the value from before the transaction (docs/libitm-differences.md) */
    for (int round = 0; round < 8; round++)
        free(copies[round]);
    puts("ok");
    return 0;
}

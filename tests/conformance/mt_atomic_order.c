/* tm_atomic_* in plain code are ordered with transactions as one-word transactions are, while
 * several threads transact (under orec algorithms the runtime does them on the orecs without
 * taking a time from the clock: runtime/ext/atomic_orec.c). Even threads run plain code, odd
 * ones transactions:
 *  - snapshot: plain code stores the same rising value to `a`, then to `b`; a transaction that
 *    reads b, then a, must see a >= b (it cannot see the later store without the earlier one);
 *  - repeatable reads and blind writes: plain code adds to `c`; transactions read it twice with
 *    work between (the same value both times) or overwrite it without reading it (orec_lazy's
 *    blind write must give the orec a version past the atomics');
 * Privatization by an exchange: mt_atomic_privatize.c. */
// TMTEST: threads=2
#include "harness.h"
#include <tmkit.h>

static long a, b, c, filler[32];
static long iters, bad_snapshot, bad_repeat;

static long work(void)
{
    long s = 0;
    for (int j = 0; j < 32; j++)
        s += filler[j];
    return s;
}

static void *snapshot(void *arg)
{
    long id = (long)(intptr_t)arg;
    for (long i = 1; i <= iters; i++) {
        if (!(id & 1)) {
            tm_atomic_store(&a, i + id * iters); /* writers' values interleave; each rises */
            tm_atomic_store(&b, i + id * iters);
            continue;
        }
        long x, y;
        __transaction_atomic {
            x = b;
            y = a + work();
        }
        /* with 2+ plain writers, a and b may come from different writers: compare the rise of
         * one writer only (the one whose range holds x) */
        if (y < x && x - y < iters && (x - 1) / iters == (y - 1) / iters)
            __atomic_fetch_add(&bad_snapshot, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void *repeat(void *arg)
{
    long id = (long)(intptr_t)arg;
    for (long i = 0; i < iters; i++) {
        if (!(id & 1)) {
            tm_atomic_fetch_add(&c, 1);
        } else if (i & 1) {
            long x, y;
            __transaction_atomic {
                x = c;
                y = c + work();
            }
            if (x != y)
                __atomic_fetch_add(&bad_repeat, 1, __ATOMIC_RELAXED);
        } else {
            __transaction_atomic { c = i; } /* blind */
        }
    }
    return NULL;
}

int main(void)
{
    th_check_runtime();
    int t = th_threads() < 2 ? 2 : th_threads();
    iters = th_iters(200000) / t;
    th_run(t, snapshot);
    CHECK_EQ(bad_snapshot, 0);
    th_run(t, repeat);
    CHECK_EQ(bad_repeat, 0);
    puts("ok");
    return 0;
}

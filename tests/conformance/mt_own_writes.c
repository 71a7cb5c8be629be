/* Threads that mostly reread and rewrite their own recent writes, sometimes each other's.
 *
 * orec_eager lets a transaction accept, without moving the clock, an orec that its own thread
 * released last, whatever its version (algo/orec_eager.c: the own-slot rule); descriptors, and
 * with them slots, pass to new threads when old ones exit. This checks the rule's consequences:
 * a thread must still see what others wrote over its data, never a mix of old and new, and a
 * thread that inherits a descriptor must not take its predecessor's releases for more than what
 * they are. Each of K counters is a pair (x, y), always written together with the same value.
 * Rounds of T threads: thread i mostly increments its own pair, sometimes another thread's
 * (moving the pair out of its slot), sometimes audits all pairs, and counts its increments in its
 * own word.
 *
 * Invariants:
 *  - inside every transaction that reads a pair, x == y (opacity: checked through a
 *    transaction_pure reporter, so a doomed attempt's view fails it too);
 *  - inside every audit, the sum of all x equals the sum of all threads' increment counts;
 *  - at the end of each round, the same sums equal the number of increments committed.
 */
// TMTEST: valgrind=yes
// TMTEST: valgrind-div=4
#include "harness.h"

#define MAXT 16
#define ROUNDS 3

static long x[MAXT], y[MAXT], cnt[MAXT];
static int nthreads;
static long n_ops;

static void *worker(void *arg)
{
    int i = (int)(intptr_t)arg;
    uint64_t rng = 0x9E3779B97F4A7C15ULL * (uint64_t)(i + 1) ^ (uint64_t)n_ops;
    long done = 0;
    for (long op = 0; op < n_ops; op++) {
        uint64_t r = th_rand(&rng);
        unsigned kind = (unsigned)(r % 10);
        if (kind < 8) {
            /* 60%: its own pair, rereading this thread's last writes; 20%: another thread's
             * pair, whose orecs then carry this thread's slot instead of the owner's */
            int k = i;
            if (kind >= 6) {
                k = (int)((r >> 8) % (uint64_t)(nthreads - 1));
                if (k >= i)
                    k++;
            }
            __transaction_atomic {
                if (x[k] != y[k])
                    th_tx_fail("%s pair x - y = %ld, expected 0", k == i ? "own" : "other",
                               x[k] - y[k]);
                x[k]++;
                y[k] = x[k];
                cnt[i]++;
            }
            done++;
        } else { /* audit */
            __transaction_atomic {
                long sx = 0, sc = 0;
                for (int k = 0; k < nthreads; k++) {
                    if (x[k] != y[k])
                        th_tx_fail("audited pair x - y = %ld, expected 0", x[k] - y[k]);
                    sx += x[k];
                    sc += cnt[k];
                }
                if (sx != sc)
                    th_tx_fail("sum of pairs - sum of counts = %ld, expected 0", sx - sc);
            }
        }
    }
    return (void *)(intptr_t)done;
}

int main(void)
{
    th_check_runtime();
    nthreads = th_threads();
    if (nthreads < 2)
        nthreads = 2;
    if (nthreads > MAXT)
        nthreads = MAXT;
    n_ops = th_iters(60000);
    long committed = 0;
    pthread_t t[MAXT];
    /* Each round's threads take the descriptors (and slots) the previous round's left, mostly
     * for other pairs: the order in which threads find free descriptors is not their index. */
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < nthreads; i++)
            CHECK(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) == 0);
        for (int i = 0; i < nthreads; i++) {
            void *ret;
            CHECK(pthread_join(t[i], &ret) == 0);
            committed += (long)(intptr_t)ret;
        }
        long sx = 0, sc = 0;
        for (int k = 0; k < nthreads; k++) {
            CHECK_EQ(x[k], y[k]);
            sx += x[k];
            sc += cnt[k];
        }
        CHECK_EQ(sx, committed);
        CHECK_EQ(sc, committed);
    }
    CHECK(committed > 0);
    printf("mt_own_writes: %d threads, %d rounds, %ld increments\n", nthreads, ROUNDS, committed);
    return 0;
}

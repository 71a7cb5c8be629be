/* Contention without livelock.
 *
 * At least 8 threads (more if TEST_THREADS says so) run long transactions that all update the
 * same 64 words, each starting at a random word and walking up or down (so writers acquire the
 * words in conflicting orders), and also bump a shared transaction count. With optimistic
 * concurrency almost every pair of transactions conflicts; a runtime must still make progress
 * (by backing off or falling back to serial execution). Checks: the run ends well within the time
 * limit (a watchdog alarm fails it), every word equals the number of committed transactions times
 * its per-transaction increment, and a read-only transaction inside the run always sees all
 * words advanced by the same number of transactions (reported through a transaction_pure hook).
 */
#include <signal.h>

#include "harness.h"

// TMTEST: timeout=90

#define WORDS 64

static long word[WORDS];
static long txcount;
static long iters;

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "mt_livelock: no completion within 60 s (livelock?)\n";
    ssize_t r = write(2, msg, sizeof msg - 1);
    (void)r;
    _exit(1);
}

static void __attribute__((transaction_pure, noinline)) tx_fail(long k, long got, long want)
{
    fprintf(stderr, "inconsistent snapshot: word[%ld] = %ld, expected %ld\n", k, got, want);
    fflush(stderr);
    _exit(1);
}

/* word[k] advances by (k % 3 + 1) per transaction */
static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    uint64_t rng = 0xFACEULL * (uint64_t)(id + 1);
    for (long i = 0; i < iters; i++) {
        int start = (int)(th_rand(&rng) % WORDS);
        int up = (id + (int)i) & 1;
        __transaction_atomic {
            for (int k = 0; k < WORDS; k++) {
                int w = up ? (start + k) % WORDS : (start - k + WORDS) % WORDS;
                word[w] += w % 3 + 1;
            }
            txcount++;
        }
        if ((i & 31) == 0) {
            __transaction_atomic {
                long c = txcount;
                for (int k = 0; k < WORDS; k++)
                    if (word[k] != c * (k % 3 + 1))
                        tx_fail(k, word[k], c * (k % 3 + 1));
            }
        }
    }
    return NULL;
}

int main(void)
{
    th_check_runtime();
    int n = th_threads();
    if (n < 8)
        n = 8;
    iters = th_iters(10000);
    signal(SIGALRM, on_alarm);
    alarm(60);
    double t0 = th_now();
    th_run(n, worker);
    double dt = th_now() - t0;
    alarm(0);

    long total = (long)n * iters;
    CHECK_EQ(txcount, total);
    for (int k = 0; k < WORDS; k++)
        CHECK_EQ(word[k], total * (k % 3 + 1));
    printf("mt_livelock: %d threads x %ld long transactions in %.2f s\n", n, iters, dt);
    return 0;
}

/* Privatization safety.
 *
 * A shared pointer names a buffer. Worker threads run transactions that read the pointer and,
 * when it is non-NULL, increment 8 words of the buffer and a shared hit counter. Each round the
 * main thread (the privatizer) publishes a fresh buffer, lets the workers hit it, then
 * transactionally sets the pointer to NULL. From then on the buffer is private: the privatizer
 *  1. checks non-transactionally that the buffer's words add up to 8 * hits (every committed
 *     increment is there, no aborted one is);
 *  2. fills it with a pattern and re-reads it for about a millisecond: a transactional write that
 *     lands after privatization (a delayed write-back or a rolled-back undo of a doomed
 *     transaction) would disturb the pattern;
 *  3. frees it (the next round's malloc may hand the same memory out again).
 */
// TMTEST: valgrind=yes
// TMTEST: valgrind-div=4
// TMTEST: libitm-div=4
// TMTEST: o0-div=4
#include <sched.h>

#include "harness.h"

#define WORDS 64

static long *shared_ptr;
static long hits;
static int stop_flag;

static void *worker(void *arg)
{
    uint64_t rng = 0xABCDEF12345ULL + (uint64_t)(intptr_t)arg * 0x9E3779B9ULL;
    unsigned n = 0;
    while (!__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE)) {
        int start = (int)(th_rand(&rng) % WORDS);
        int saw = 0;
        __transaction_atomic {
            long *p = shared_ptr;
            saw = p != NULL;
            if (p) {
                for (int k = 0; k < 8; k++)
                    p[(start + 7 * k) % WORDS] += 1;
                hits++;
            }
        }
        if (!saw || (++n & 63) == 0)
            sched_yield(); /* oversubscribed: leave the CPU to the privatizer now and then */
    }
    return NULL;
}

static long pattern(int round, int j) { return 0x5A5A0000L + (long)round * WORDS + j; }

int main(void)
{
    th_check_runtime();
    int n = th_threads();
    int rounds = (int)th_iters(500);
    pthread_t *t = calloc((size_t)n, sizeof *t);
    CHECK(t != NULL);
    for (int i = 0; i < n; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) == 0);

    long total_hits = 0, busy_rounds = 0;
    for (int r = 0; r < rounds; r++) {
        long *buf = calloc(WORDS, sizeof *buf);
        CHECK(buf != NULL);
        __transaction_atomic {
            shared_ptr = buf;
            hits = 0;
        }
        /* let the workers hit the buffer: until 20 hits or 2 ms, whichever comes first */
        double until = th_now() + 0.002;
        long h;
        do {
            sched_yield();
            __transaction_atomic { h = hits; }
        } while (h < 20 && th_now() < until);

        __transaction_atomic {
            shared_ptr = NULL;
            h = hits;
        }
        /* buf is private now */
        volatile long *vb = buf;
        long sum = 0;
        for (int j = 0; j < WORDS; j++)
            sum += vb[j];
        if (sum != 8 * h) {
            fprintf(stderr, "round %d: buffer sum %ld but %ld committed hits x 8 = %ld\n", r, sum,
                    h, 8 * h);
            exit(1);
        }
        total_hits += h;
        busy_rounds += h > 0;
        for (int j = 0; j < WORDS; j++)
            vb[j] = pattern(r, j);
        double end = th_now() + 0.001;
        do {
            for (int j = 0; j < WORDS; j++) {
                if (vb[j] != pattern(r, j)) {
                    fprintf(stderr, "round %d: private buffer word %d changed to %ld after "
                                    "privatization\n", r, j, vb[j]);
                    exit(1);
                }
            }
        } while (th_now() < end);
        free(buf);
    }
    __atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < n; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    free(t);
    CHECK(total_hits > 0);
    CHECK(busy_rounds > rounds / 4);
    printf("mt_privatize: %d workers, %d rounds, %ld hits, %ld rounds with hits\n", n, rounds,
           total_hits, busy_rounds);
    return 0;
}

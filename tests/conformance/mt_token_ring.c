/* Threads pass a token round, each waiting for its turn in read-only transactions, as PARSEC's
 * transactional barrier and condition variables turned into busy waits do. Under a serial
 * lock every wait holds the lock for a moment, so the thread whose turn it is must get the lock
 * from threads that keep taking it (tmkit: core/serial_handoff.c hands it over when the holder
 * has only been reading, and makes a writing holder hand over after a turn).
 *
 * Each thread waits ROUNDS times for token % threads == its id, reading the token in one
 * transaction; then, in a writing transaction, checks that the token is still its turn (only
 * the turn's owner may move it), records its id in a shared, unsynchronized log at the
 * token's position and moves the token on. Checks: the token ends at threads * ROUNDS; every
 * log entry names the thread whose turn that position was; no writing transaction found the
 * turn taken. With more threads than CPUs a busy wait can only progress when the scheduler
 * runs the right thread, so the waits yield now and then (the hand-off itself is still
 * exercised by the waits' transactions in between).
 */
#include <sched.h>

#include "harness.h"

#define ROUNDS 100
#define MAX_THREADS 64

static long token;
static int log_[MAX_THREADS * ROUNDS];
static long stolen; /* writing transactions that found the turn someone else's */
static int n_threads;

static void *worker(void *arg)
{
    int me = (int)(intptr_t)arg;
    for (int r = 0; r < ROUNDS; r++) {
        for (unsigned spins = 0;; spins++) {
            long t;
            __transaction_atomic { t = token; }
            if (t % n_threads == me)
                break;
            if (spins % 256 == 255)
                sched_yield();
        }
        __transaction_atomic {
            if (token % n_threads != me) {
                stolen++;
            } else {
                log_[token] = me;
                token++;
            }
        }
    }
    return NULL;
}

int main(void)
{
    th_check_runtime();
    n_threads = th_threads() < 2 ? 2 : th_threads();
    CHECK(n_threads <= MAX_THREADS);
    for (int i = 0; i < MAX_THREADS * ROUNDS; i++)
        log_[i] = -1;
    double t0 = th_now();
    th_run(n_threads, worker);
    double elapsed = th_now() - t0;
    CHECK_EQ(stolen, 0);
    CHECK_EQ(token, (long)n_threads * ROUNDS);
    for (long i = 0; i < token; i++)
        CHECK_EQ(log_[i], (int)(i % n_threads));
    printf("mt_token_ring: %d threads, %ld hand-offs in %.3f s\n", n_threads, token, elapsed);
    return 0;
}

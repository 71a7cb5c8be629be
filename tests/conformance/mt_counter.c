/* tm_counter_t: 8 (TEST_THREADS) threads add to counters inside transactions, while one reader
 * checks snapshots. Every transaction adds 1 to `a` and 2 to `b` (and sometimes also writes a
 * shared word, so transactions conflict and abort, and some cancel a nested transaction that
 * added 1000: dropped with it). The reader's snapshots of (a, b) must be consistent (b == 2a:
 * a transaction's additions all or none) and monotonic; at the end a and b are exact. Inside a
 * transaction, a read sees the transaction's own pending additions. */
// TMTEST: threads=2
// TMTEST: libitm-div=10
// TMTEST: o0-div=4
#include "harness.h"
#include <tmkit.h>

static tm_counter_t a = TM_COUNTER_INITIALIZER, b = TM_COUNTER_INITIALIZER;
static long shared_word;
static long iters;
static volatile int stop;

static void *adder(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (long i = 0; i < iters; i++) {
        __transaction_atomic {
            tm_counter_add(&a, 1);
            tm_counter_add(&b, 2);
            if ((i & 15) == (id & 15))
                shared_word++;
            if ((i & 255) == 7) {
                __transaction_atomic {
                    tm_counter_add(&a, 1000);
                    __transaction_cancel;
                }
            }
        }
    }
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    long last = 0, snaps = 0;
    tm_counter_t *const both[2] = {&a, &b};
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        long v[2];
        tm_counter_snapshot(both, v, 2);
        CHECK_EQ(v[1], 2 * v[0]);
        CHECK(v[0] >= last);
        last = v[0];
        snaps++;
    }
    CHECK(snaps > 0);
    return NULL;
}

static void *worker(void *arg)
{
    return (intptr_t)arg == 0 ? reader(arg) : adder(arg);
}

int main(void)
{
    th_check_runtime();
    int nt = th_threads();
    if (nt < 2)
        nt = 2;
    /* 2,500,000 transactions in all: ~10,000 nested cancels and ~156,000 conflicting writes
     * of the shared word, while the reader checks snapshots the whole time (10,000,000 took
     * 1-5 s a run, 41 runs in make test, and asserted nothing more). */
    iters = th_iters(2500000) / (nt - 1);
    pthread_t r;
    CHECK(pthread_create(&r, NULL, reader, (void *)0) == 0);
    pthread_t *t = (pthread_t *)calloc((size_t)nt, sizeof *t);
    for (int i = 1; i < nt; i++)
        CHECK(pthread_create(&t[i], NULL, adder, (void *)(intptr_t)i) == 0);
    for (int i = 1; i < nt; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    CHECK(pthread_join(r, NULL) == 0);
    CHECK_EQ(tm_counter_read(&a), iters * (nt - 1));
    CHECK_EQ(tm_counter_read(&b), 2 * iters * (nt - 1));
    /* a transaction sees its own pending additions */
    long inside = 0;
    __transaction_atomic {
        tm_counter_add(&a, 5);
        inside = tm_counter_read(&a);
    }
    CHECK_EQ(inside, iters * (nt - 1) + 5);
    free(t);
    (void)worker;
    puts("ok");
    return 0;
}

/* tm_counter_t read inside transactions while other transactions add to it. A transaction's
 * additions are made in place under its thread's sequence lock, held until it commits
 * (runtime/ext/counter.c), so a reader waits for in-flight adders; a reader inside a transaction
 * must not deadlock with an adder that waits for it (to go serial-irrevocable, or for
 * quiescence). Every thread, in each transaction: adds 1 to `a` and 2 to `b`, reads both (its
 * own additions included: a read inside sees b == 2a for the committed part plus its own), and
 * now and then goes irrevocable (a relaxed transaction calling unsafe code) while holding its
 * additions. At the end a and b are exact. Runs under every algorithm with more threads than
 * cores. */
// TMTEST: threads=2
#include "harness.h"
#include <tmkit.h>

static tm_counter_t a = TM_COUNTER_INITIALIZER, b = TM_COUNTER_INITIALIZER;
/* Outside the transactions: tm_counter_snapshot is transaction_pure, so under a redo-log
 * algorithm it would not see an array initialized inside the same transaction. */
static tm_counter_t *const both[2] = {&a, &b};
static long iters, shared;
static volatile long sink;

__attribute__((noinline)) static void unsafe(void) { sink = sink + 1; }

static void *worker(void *arg)
{
    long mine = 0, bad = 0;
    uint64_t seed = (uint64_t)(intptr_t)arg + 11;
    for (long i = 0; i < iters; i++) {
        unsigned r = (unsigned)th_rand(&seed);
        long va, vb;
        if (r % 64 == 0) {
            __transaction_relaxed {
                tm_counter_add(&a, 1);
                tm_counter_add(&b, 2);
                unsafe(); /* irrevocable, with its additions open */
                long v[2];
                tm_counter_snapshot(both, v, 2);
                va = v[0];
                vb = v[1];
            }
        } else {
            __transaction_atomic {
                tm_counter_add(&a, 1);
                if (r % 4 == 0)
                    shared++; /* some conflicts: aborts undo the additions */
                tm_counter_add(&b, 2);
                long v[2];
                tm_counter_snapshot(both, v, 2);
                va = v[0];
                vb = v[1];
            }
        }
        mine++;
        if (vb != 2 * va || va < mine)
            bad++;
    }
    return (void *)(intptr_t)bad;
}

int main(void)
{
    th_check_runtime();
    int nt = th_threads();
    iters = th_iters(40000) / nt;
    pthread_t *t = (pthread_t *)calloc((size_t)nt, sizeof *t);
    for (int i = 0; i < nt; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) == 0);
    long errors = 0;
    for (int i = 0; i < nt; i++) {
        void *r;
        CHECK(pthread_join(t[i], &r) == 0);
        errors += (long)(intptr_t)r;
    }
    CHECK_EQ(errors, 0);
    CHECK_EQ(tm_counter_read(&a), iters * nt);
    CHECK_EQ(tm_counter_read(&b), 2 * iters * nt);
    free(t);
    puts("ok");
    return 0;
}

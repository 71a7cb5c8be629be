/* Irrevocable (serial) transactions run alone.
 *
 * Half of the threads mix __transaction_relaxed blocks that call unsafe code (usleep, a volatile
 * store) with atomic increments; the other half only run atomic transactions that increment a
 * shared counter and note, in the same transaction, whether they saw the marker of an
 * irrevocable transaction. Once a relaxed transaction has made its first unsafe call it is
 * irrevocable and must exclude every other transaction, so:
 *  - _ITM_inTransaction() says 2 (irrevocable) after the first unsafe call;
 *  - the shared counter does not move while it sleeps;
 *  - the marker it sets is still its own after the sleep (no other irrevocable transaction ran);
 *  - no committed atomic transaction ever saw a marker (the marker is only set and cleared inside
 *    the irrevocable transaction);
 *  - the final counter equals the exact number of committed increments.
 */
#include <sched.h>

#include "harness.h"

static long counter;
static long marker;
static long marker_seen;
static volatile int sink;
static long relaxed_iters;
static int stop_flag;

/* Runs until every relaxed thread is done, so the two kinds always overlap. */
static void *atomic_worker(void *arg)
{
    (void)arg;
    long done = 0;
    while (!__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE)) {
        __transaction_atomic {
            counter++;
            if (marker != 0)
                marker_seen++;
        }
        if ((++done & 31) == 0)
            sched_yield(); /* oversubscribed: let the irrevocable ones in now and then */
    }
    return (void *)(intptr_t)done;
}

struct relaxed_result {
    long moved, not_irrevocable, stolen_marker, ok;
};

static void *relaxed_worker(void *arg)
{
    long me = (long)(intptr_t)arg + 1;
    struct relaxed_result *res = calloc(1, sizeof *res);
    CHECK(res != NULL);
    for (long i = 0; i < relaxed_iters; i++) {
        /* interleave atomic increments so relaxed threads also compete as ordinary txns */
        for (int k = 0; k < 20; k++)
            __transaction_atomic { counter++; }
        __transaction_relaxed {
            sink = (int)i; /* volatile store: unsafe, the transaction goes irrevocable here */
            if (_ITM_inTransaction() != th_inIrrevocableTransaction)
                res->not_irrevocable++;
            long before = counter;
            marker = me;
            if (i & 1)
                usleep(100);
            else
                for (int k = 0; k < 20000; k++)
                    sink = k;
            if (counter != before)
                res->moved++;
            if (marker != me)
                res->stolen_marker++;
            marker = 0;
            counter++;
            res->ok++;
        }
    }
    return res;
}

int main(void)
{
    th_check_runtime();
    int n = th_threads();
    int n_rel = n / 2 > 0 ? n / 2 : 1;
    int n_atom = n - n_rel > 0 ? n - n_rel : 1;
    relaxed_iters = th_iters(2000) / n_rel; /* the same total for any thread count */

    pthread_t *ta = calloc((size_t)n_atom, sizeof *ta), *tr = calloc((size_t)n_rel, sizeof *tr);
    CHECK(ta && tr);
    for (int i = 0; i < n_atom; i++)
        CHECK(pthread_create(&ta[i], NULL, atomic_worker, NULL) == 0);
    for (int i = 0; i < n_rel; i++)
        CHECK(pthread_create(&tr[i], NULL, relaxed_worker, (void *)(intptr_t)i) == 0);
    long relaxed_ok = 0;
    for (int i = 0; i < n_rel; i++) {
        struct relaxed_result *res;
        CHECK(pthread_join(tr[i], (void **)&res) == 0);
        CHECK_EQ(res->not_irrevocable, 0);
        CHECK_EQ(res->moved, 0);
        CHECK_EQ(res->stolen_marker, 0);
        relaxed_ok += res->ok;
        free(res);
    }
    __atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
    long atomic_done = 0;
    for (int i = 0; i < n_atom; i++) {
        void *ret;
        CHECK(pthread_join(ta[i], &ret) == 0);
        atomic_done += (long)(intptr_t)ret;
    }
    CHECK(atomic_done > 0);
    free(ta);
    free(tr);
    CHECK_EQ(relaxed_ok, (long)n_rel * relaxed_iters);
    CHECK_EQ(marker, 0);
    CHECK_EQ(marker_seen, 0);
    CHECK_EQ(counter, atomic_done + (long)n_rel * relaxed_iters * 21);
    printf("mt_irrevocable: %d atomic + %d relaxed threads, counter %ld\n", n_atom, n_rel, counter);
    return 0;
}

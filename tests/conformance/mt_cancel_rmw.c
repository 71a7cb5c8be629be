// TMTEST: libitm=skip:libitm's serial dispatch does not undo-log _ITM_RfW loads, so at -O2 an x++ survives __transaction_cancel in serial mode (every nested cancel, outer cancels under serialirr)
/* Read-modify-write inside cancelled transactions (outermost and nested), alone and concurrently.
 *
 * At -O2 GCC compiles `x++` / `x += d` inside a transaction into _ITM_RfW* (read for write)
 * followed by _ITM_WaW* (write after write): the store is flagged as hitting a location the
 * transaction already owns, so the runtime must have logged the old value at the RfW load. A
 * cancel must still restore it.
 *
 * The system libitm gets this wrong at -O2: its serial (undo-logging) dispatch, used for
 * cancellable transactions under serialirr, for every nested cancel (gl_wt and ml_wt restart the
 * transaction in serial mode to get closed nesting) and after contention fallbacks, logs nothing
 * for RfW and nothing for WaW, so the increment survives the cancel. The program is correct (it
 * passes at -O0 under every libitm method, where GCC emits plain RU/WU barriers); tmkit must pass
 * it at both levels.
 *
 * Phases:
 *  1. single thread: outermost cancel after ++ on a global, a struct field and an array element;
 *  2. single thread: committed outer transaction with a nested transaction that increments the same
 *     kinds of locations and cancels; only the outer increments survive;
 *  3. all threads: every transaction increments a shared counter; every third one also runs a
 *     nested transaction that increments a second counter and cancels, every fifth one cancels as a
 *     whole after incrementing both. Final counters equal the committed increments exactly, and the
 *     cancelled-only counter is 0.
 */
#include "harness.h"

struct rec {
    long hits;
    int small;
    unsigned char tiny;
};

static long g;
static struct rec r;
static long arr[16];
static long committed_ctr;
static long cancelled_only;
static long iters;

static void phase_outer_cancel(void)
{
    for (int i = 0; i < 100; i++) {
        __transaction_atomic {
            g++;
            r.hits += 3;
            r.small++;
            r.tiny++;
            arr[i % 16] += 5;
            if (g != -12345) /* always true */
                __transaction_cancel;
        }
    }
    CHECK_EQ(g, 0);
    CHECK_EQ(r.hits, 0);
    CHECK_EQ(r.small, 0);
    CHECK_EQ(r.tiny, 0);
    for (int k = 0; k < 16; k++)
        CHECK_EQ(arr[k], 0);
}

static void phase_nested_cancel(void)
{
    for (int i = 0; i < 100; i++) {
        __transaction_atomic {
            g += 2;
            __transaction_atomic {
                g++;
                r.hits++;
                r.tiny++;
                arr[i % 16]++;
                if (r.hits != -12345)
                    __transaction_cancel;
            }
            arr[(i + 1) % 16] += 7;
        }
    }
    CHECK_EQ(g, 200);
    CHECK_EQ(r.hits, 0);
    CHECK_EQ(r.tiny, 0);
    long s = 0;
    for (int k = 0; k < 16; k++)
        s += arr[k];
    CHECK_EQ(s, 700);
}

static void *worker(void *arg)
{
    (void)arg;
    long mine = 0;
    for (long i = 0; i < iters; i++) {
        if (i % 5 == 4) {
            __transaction_atomic {
                committed_ctr++;
                cancelled_only++;
                if (committed_ctr != -1)
                    __transaction_cancel;
            }
            continue;
        }
        __transaction_atomic {
            committed_ctr++;
            if (i % 3 == 0) {
                __transaction_atomic {
                    cancelled_only += 2;
                    committed_ctr += 100;
                    if (cancelled_only != -1)
                        __transaction_cancel;
                }
            }
        }
        mine++;
    }
    return (void *)(intptr_t)mine;
}

int main(void)
{
    th_check_runtime();
    phase_outer_cancel();
    phase_nested_cancel();

    int n = th_threads();
    iters = th_iters(50000);
    pthread_t *t = calloc((size_t)n, sizeof *t);
    CHECK(t != NULL);
    for (int i = 0; i < n; i++)
        CHECK(pthread_create(&t[i], NULL, worker, NULL) == 0);
    long mine = 0;
    for (int i = 0; i < n; i++) {
        void *ret;
        CHECK(pthread_join(t[i], &ret) == 0);
        mine += (long)(intptr_t)ret;
    }
    free(t);
    CHECK_EQ(committed_ctr, mine);
    CHECK_EQ(mine, (long)n * (iters - iters / 5));
    CHECK_EQ(cancelled_only, 0);
    printf("mt_cancel_rmw: %d threads, %ld committed increments\n", n, mine);
    return 0;
}

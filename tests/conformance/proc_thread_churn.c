/* Thread churn: per-thread runtime state must be released when a thread exits.
 *
 * 5,000 short-lived threads are created and joined in batches of 50. Each runs a few atomic
 * transactions on shared counters, one that cancels, one relaxed transaction (irrevocable), one
 * nested transaction, and one that registers a commit action. The process's heap use
 * (mallinfo2().uordblks) and resident set size (/proc/self/statm) are sampled once half of the
 * threads have run (by then runtime tables, malloc arenas and the stack cache have reached their
 * steady size: under libitm ml_wt RSS keeps rising for the first ~2000 threads) and again at the
 * end. Over the second half (2,500 threads) the heap may grow by less than 256 KiB (a leak of 100
 * bytes per thread fails) and RSS by less than 8 MiB (a leaked, touched page per thread fails).
 * Shared counters and commit-action counts must be exact.
 */
#include <malloc.h>

#include "harness.h"

// TMTEST: timeout=120

#define BATCH 50
#define TOTAL 5000

static long counter;
static long cancelled;
static long relaxed_runs;
static long nested_sum;
static long commit_actions;
static volatile int sink;

static void on_commit(void *arg)
{
    __atomic_fetch_add(&commit_actions, (long)(intptr_t)arg, __ATOMIC_RELAXED);
}

static void *short_lived(void *arg)
{
    long id = (long)(intptr_t)arg;
    for (int i = 0; i < 4; i++)
        __transaction_atomic { counter++; }
    __transaction_atomic {
        cancelled = id + 1;
        if (counter != -1)
            __transaction_cancel;
    }
    __transaction_relaxed {
        sink = (int)id; /* volatile store: irrevocable */
        relaxed_runs++;
    }
    __transaction_atomic {
        nested_sum += 1;
        __transaction_atomic { nested_sum += 2; }
    }
    __transaction_atomic {
        _ITM_addUserCommitAction(on_commit, TH_NO_TRANSACTION_ID, (void *)(intptr_t)1);
        counter++;
    }
    return NULL;
}

static long rss_pages(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    CHECK(f != NULL);
    long size = 0, rss = 0;
    CHECK(fscanf(f, "%ld %ld", &size, &rss) == 2);
    fclose(f);
    return rss;
}

static void run_batch(pthread_attr_t *attr, long base, int n)
{
    pthread_t t[BATCH];
    for (int i = 0; i < n; i++)
        CHECK(pthread_create(&t[i], attr, short_lived, (void *)(intptr_t)(base + i)) == 0);
    for (int i = 0; i < n; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
}

int main(void)
{
    th_check_runtime();
    long total = th_iters(TOTAL);
    /* one malloc arena, so that mallinfo2() (which reports the main arena only) sees what the
     * runtime allocates on the worker threads */
    CHECK(mallopt(M_ARENA_MAX, 1) == 1);
    pthread_attr_t attr;
    CHECK(pthread_attr_init(&attr) == 0);
    CHECK(pthread_attr_setstacksize(&attr, 128 * 1024) == 0);

    long done = 0;
    while (done < total / 2) {
        int n = total / 2 - done < BATCH ? (int)(total / 2 - done) : BATCH;
        run_batch(&attr, done, n);
        done += n;
    }
    size_t heap0 = mallinfo2().uordblks;
    long rss0 = rss_pages();
    double t0 = th_now();
    while (done < total) {
        int n = total - done < BATCH ? (int)(total - done) : BATCH;
        run_batch(&attr, done, n);
        done += n;
    }
    double dt = th_now() - t0;
    size_t heap1 = mallinfo2().uordblks;
    long rss1 = rss_pages();
    pthread_attr_destroy(&attr);

    long page = sysconf(_SC_PAGESIZE);
    long heap_growth = (long)heap1 - (long)heap0;
    long rss_growth = (rss1 - rss0) * page;
    printf("proc_thread_churn: %ld threads; second half in %.2f s: heap %zu -> %zu, "
           "rss %ld -> %ld KiB\n", done, dt, heap0, heap1, rss0 * page / 1024, rss1 * page / 1024);
    CHECK_EQ(counter, 5 * done);
    CHECK_EQ(cancelled, 0);
    CHECK_EQ(relaxed_runs, done);
    CHECK_EQ(nested_sum, 3 * done);
    CHECK_EQ(commit_actions, done);
    CHECK(heap_growth < 256 * 1024);
    CHECK(rss_growth < 8 * 1024 * 1024);
    return 0;
}

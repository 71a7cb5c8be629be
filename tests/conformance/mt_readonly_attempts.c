/* Transactions that GCC flags read-only (pr_readOnly), which orec_eager runs first without a
 * read log (algo/orec_eager_ro.c), in the three cases where such an attempt cannot go on:
 *  1. it writes after all: GCC sets the flag for a transaction whose only store is inside a
 *     transaction_pure function, and such a function may write through the barriers (here
 *     _ITM_WU8, as tmkit.h's wrappers do): the write must land, once, and the commit action
 *     run once;
 *  2. it meets data committed after it began, after it has read something: the reader below
 *     reads x, waits (inside the transaction, bounded) until the writer has committed again,
 *     then reads y; the writer keeps x == y, and every attempt checks it before it can act on
 *     it (th_tx_fail: opacity, not only the committed result);
 *  3. it waits (tm_retry) for a flag another thread sets: it must sleep, not spin, while the
 *     flag is down (the waiting thread's CPU time is checked against the wall time).
 * Runs under every algorithm; under GCC's libitm too (tm_retry then polls: case 3 is skipped). */
// TMTEST: threads=2
// TMTEST: libitm-div=4
#include "harness.h"
#include <tmkit.h>

static long target, x, y, commits_seen;
static volatile long writer_commits; /* plain counter the writer bumps after each commit */
static volatile int stop;
static int on_tmkit;

/* A pure function that writes through the ABI on behalf of its caller's transaction. */
__attribute__((transaction_pure, noinline)) static void pure_store(long *p, long v)
{
    _ITM_WU8((uint64_t *)p, (uint64_t)v);
}

__attribute__((transaction_pure, noinline)) static void bump_commits(void *arg)
{
    (void)arg;
    __atomic_fetch_add(&commits_seen, 1, __ATOMIC_RELAXED);
}

/* Bounded: under the serial algorithms the writer cannot commit while we run. */
__attribute__((transaction_pure, noinline)) static void wait_for_writer(long seen)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        if (writer_commits != seen || stop)
            return;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 1000000L);
}

__attribute__((transaction_pure, noinline)) static long writer_commits_now(void)
{
    return writer_commits;
}

static void case_pure_write(void)
{
    for (long i = 1; i <= th_iters(200); i++) {
        long before = commits_seen, a = 0;
        __transaction_atomic {
            long b;
            a = x;
            b = y;
            if (a != b)
                th_tx_fail("x %ld != y %ld", a, b);
            _ITM_addUserCommitAction(bump_commits, TH_NO_TRANSACTION_ID, NULL);
            pure_store(&target, a + i);
        }
        CHECK_EQ(target, a + i);
        CHECK_EQ(commits_seen, before + 1);
    }
}

static void *writer(void *arg)
{
    (void)arg;
    while (!stop) {
        __transaction_atomic {
            x++;
            y++;
        }
        writer_commits = writer_commits + 1;
    }
    return NULL;
}

static long reader_rounds(long n)
{
    long fresh = 0;
    for (long i = 0; i < n; i++) {
        long a = 0, b = 0, seen = 0;
        __transaction_atomic {
            seen = writer_commits_now();
            a = x;
            wait_for_writer(seen);
            b = y;
            if (a != b)
                th_tx_fail("read x %ld then y %ld", a, b);
        }
        CHECK_EQ(a, b);
        fresh += writer_commits != seen;
    }
    return fresh;
}

static int flag;

static void *raise_flag(void *arg)
{
    usleep((useconds_t)(intptr_t)arg);
    __transaction_atomic { flag = 1; }
    return NULL;
}

static double thread_cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void case_retry(void)
{
    const long delay_us = 50000;
    flag = 0;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, raise_flag, (void *)(intptr_t)delay_us) == 0);
    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    double c0 = thread_cpu_s();
    tm_atomic_retry {
        if (!flag)
            tm_retry();
    }
    double cpu = thread_cpu_s() - c0;
    clock_gettime(CLOCK_MONOTONIC, &w1);
    double wall = (double)(w1.tv_sec - w0.tv_sec) + (w1.tv_nsec - w0.tv_nsec) / 1e9;
    CHECK(pthread_join(t, NULL) == 0);
    CHECK_EQ(flag, 1);
    if (wall > 0.03 && cpu > wall / 2) {
        fprintf(stderr, "tm_retry in a read-only transaction used %.3f s of CPU in %.3f s\n", cpu,
                wall);
        exit(1);
    }
}

int main(void)
{
    th_check_runtime();
    const char *rt = getenv("EXPECT_RUNTIME");
    on_tmkit = !rt || strcmp(rt, "libitm") != 0;

    case_pure_write();

    int nw = th_threads() - 1 > 0 ? th_threads() - 1 : 1;
    pthread_t w[64];
    if (nw > 64)
        nw = 64;
    for (int i = 0; i < nw; i++)
        CHECK(pthread_create(&w[i], NULL, writer, NULL) == 0);
    long fresh = reader_rounds(th_iters(100));
    case_pure_write(); /* again, with the writers running */
    stop = 1;
    for (int i = 0; i < nw; i++)
        CHECK(pthread_join(w[i], NULL) == 0);
    CHECK_EQ(x, y);

    if (on_tmkit)
        case_retry();
    printf("ok (%ld of the reader's transactions saw a commit after their first read)\n", fresh);
    return 0;
}

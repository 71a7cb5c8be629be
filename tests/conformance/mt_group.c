/* Lock groups (tm_group_t): LockSTM's three kinds of section at once.
 * - Non-revocable: thread 0 moves units between x[0] and x[1] in plain code holding group gx
 *   exclusively, with a system call (write to /dev/null) in the middle of the move: while it
 *   holds gx, x's sum is off by one. It also keeps a log line (buffer `logbuf`, group glog).
 * - Hybrid: the other threads enter gx in shared mode and, in transactions, move units among
 *   all of x[] and check that x's sum is what it must be (a transaction that could see the
 *   non-revocable section's half-done move would count an error). Some also enter glog (two
 *   groups in one call, named in either order) and read the log's two halves, always equal.
 * - Pure: transactions on y[] only, with no group: they must never wait for the section.
 * Every thread also takes gx shared twice (nesting) now and then. At the end: x's and y's sums
 * exact, no torn sum ever seen, and every kind of section ran. Under every algorithm, and on
 * GCC's libitm (groups are read-write locks there). */
// TMTEST: threads=2
#include <fcntl.h>
#include <unistd.h>

#include "harness.h"
#include <tmkit.h>

#define NX 16
#define NY 16
#define TOTAL (NX * 1000L)

static tm_group_t gx = TM_GROUP_INITIALIZER, glog = TM_GROUP_INITIALIZER;
static long x[NX], y[NY];
static long loglen[2];
static long iters;
static long torn, nr_done, hybrid_done, pure_done, log_reads;
static int devnull;
static volatile int stop;

static void *nonrevocable(void *arg)
{
    (void)arg;
    long moves = 0;
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE) || moves < 50) {
        tm_group_lock(&gx);
        x[0]--; /* plain code: the transactions in gx must not see this half-done move */
        CHECK(write(devnull, "x", 1) == 1);
        x[1]++;
        tm_group_unlock(&gx);
        tm_group_lock(&glog, &gx); /* both, named out of order */
        loglen[0]++;
        CHECK(write(devnull, "log", 3) == 3);
        loglen[1]++;
        tm_group_unlock(&gx, &glog);
        moves++;
    }
    __atomic_store_n(&nr_done, moves, __ATOMIC_RELEASE);
    return NULL;
}

static void *hybrid(void *arg)
{
    uint64_t seed = (uint64_t)(intptr_t)arg * 7919 + 1;
    long bad = 0, h = 0, p = 0, lr = 0;
    for (long i = 0; i < iters; i++) {
        unsigned r = (unsigned)th_rand(&seed);
        if (r % 4 == 0) { /* pure: y only, no group */
            int a = (int)(r >> 8) % NY, b = (int)(r >> 16) % NY;
            __transaction_atomic {
                y[a]--;
                y[b]++;
            }
            p++;
            continue;
        }
        int a = (int)(r >> 8) % NX, b = (int)(r >> 16) % NX;
        int nest = r % 16 == 1, with_log = r % 8 == 3;
        if (with_log)
            tm_group_enter(&gx, &glog);
        else
            tm_group_enter(&gx);
        if (nest)
            tm_group_enter(&gx);
        long sum = 0, l0 = 0, l1 = 0;
        __transaction_atomic {
            x[a]--;
            x[b]++;
            sum = 0;
            for (int k = 0; k < NX; k++)
                sum += x[k];
            if (with_log) {
                l0 = loglen[0];
                l1 = loglen[1];
            }
        }
        if (nest)
            tm_group_exit(&gx);
        if (with_log) {
            tm_group_exit(&glog, &gx);
            lr++;
            if (l0 != l1)
                bad++;
        } else {
            tm_group_exit(&gx);
        }
        if (sum != TOTAL)
            bad++;
        h++;
    }
    __atomic_fetch_add(&torn, bad, __ATOMIC_RELAXED);
    __atomic_fetch_add(&hybrid_done, h, __ATOMIC_RELAXED);
    __atomic_fetch_add(&pure_done, p, __ATOMIC_RELAXED);
    __atomic_fetch_add(&log_reads, lr, __ATOMIC_RELAXED);
    return NULL;
}

int main(void)
{
    th_check_runtime();
    devnull = open("/dev/null", O_WRONLY);
    CHECK(devnull >= 0);
    for (int k = 0; k < NX; k++)
        x[k] = TOTAL / NX;
    int nt = th_threads();
    if (nt < 2)
        nt = 2;
    iters = th_iters(200000) / (nt - 1);
    pthread_t n, *t = (pthread_t *)calloc((size_t)nt, sizeof *t);
    CHECK(pthread_create(&n, NULL, nonrevocable, NULL) == 0);
    for (int i = 1; i < nt; i++)
        CHECK(pthread_create(&t[i], NULL, hybrid, (void *)(intptr_t)i) == 0);
    for (int i = 1; i < nt; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    CHECK(pthread_join(n, NULL) == 0);
    long sx = 0, sy = 0;
    for (int k = 0; k < NX; k++)
        sx += x[k];
    for (int k = 0; k < NY; k++)
        sy += y[k];
    CHECK_EQ(sx, TOTAL);
    CHECK_EQ(sy, 0);
    CHECK_EQ(torn, 0);
    CHECK_EQ(loglen[0], loglen[1]);
    CHECK_EQ(loglen[0], nr_done);
    CHECK(nr_done >= 50 && hybrid_done > 0 && pure_done > 0 && log_reads > 0);
    free(t);
    puts("ok");
    return 0;
}

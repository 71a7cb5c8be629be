/* Threads that fail to start or are cancelled, under the algorithm TMKIT_ALGO names:
 *  1. the runtime starts no thread of its own: in a child with the exit report and the shared
 *     statistics segment on (the features that could want a helper), every pthread_create
 *     call from libitm.so.1 is refused and counted (fault_inject.h); there must be none, and
 *     the child's bank workload must hold;
 *  2. the program's own pthread_create fails (EAGAIN) while other threads transact: they go
 *     on, and a thread started afterwards transacts normally;
 *  3. threads cancelled (pthread_cancel) at a cancellation point outside their transactions,
 *     round after round, while TEST_THREADS others transact: the others finish with the
 *     total intact, every block the cancelled threads allocated (their transactions' and
 *     the runtime's logs) is freed by their exit, and no descriptor is left registered: a
 *     transaction that goes irrevocable afterwards (it drains every registered reader) and
 *     the orec algorithms' quiescence (every writer's commit waits for the registered
 *     readers) complete within the alarm. */
#include "fault_inject.h"
#include "harness.h"
#include "fault_spawn.h"
#include <signal.h>

enum { ACCOUNTS = 64, ROUNDS = 6 };
static long bank[ACCOUNTS];
static volatile int stop;

static void transfer(uint64_t *seed)
{
    int a = (int)(th_rand(seed) % ACCOUNTS), b = (int)(th_rand(seed) % ACCOUNTS);
    __transaction_atomic {
        long *p = (long *)malloc(24);
        bank[a] -= 1;
        bank[b] += 1;
        free(p);
    }
}

static void *worker(void *arg)
{
    uint64_t seed = (uint64_t)(intptr_t)arg * 31 + 7;
    long n = 0;
    while (!stop) {
        transfer(&seed);
        n++;
    }
    return (void *)n;
}

static void *victim(void *arg)
{
    uint64_t seed = (uint64_t)(intptr_t)arg * 131 + 3;
    fault_track(1); /* every block this thread allocates, the runtime's included */
    for (;;) {
        for (int i = 0; i < 50; i++)
            transfer(&seed);
        usleep(100); /* a cancellation point, outside any transaction */
    }
    return NULL;
}

static long total(void)
{
    long s = 0;
    for (int i = 0; i < ACCOUNTS; i++)
        s += bank[i];
    return s;
}

static void unsafe_call(void) { __asm__ volatile(""); }

int main(int argc, char **argv)
{
    th_check_runtime();
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        child_bank();
        long n = atomic_load(&fi_runtime_creates);
        if (n) {
            fprintf(stderr, "the runtime called pthread_create %ld times\n", n);
            return 3;
        }
        return 0;
    }
    alarm(50); /* a hang fails the test (SIGALRM) */

    /* 1. */
    char report[64], shm[64], path[64];
    snprintf(report, sizeof report, "TMKIT_STATS=/tmp/fault_thread.%d.json", (int)getpid());
    snprintf(shm, sizeof shm, "TMKIT_STATS_SHM=fault_thread%d", (int)getpid());
    const char *env[] = {report, shm, NULL};
    struct child_run r;
    child_spawn(&r, env, 0, NULL);
    unlink(report + strlen("TMKIT_STATS="));
    snprintf(path, sizeof path, "/dev/shm/tmkit.fault_thread%d", (int)getpid());
    unlink(path);
    if (!child_ok(&r)) {
        fprintf(stderr, "child with statistics: status 0x%x\n%s\n", r.status, r.err);
        return 1;
    }
    printf("fault_thread: the runtime's pthread_create calls (statistics on): 0\n");

    for (int i = 0; i < ACCOUNTS; i++)
        bank[i] = 100;
    int nw = th_threads();
    pthread_t w[64];
    CHECK(nw <= 64);
    for (int i = 0; i < nw; i++)
        CHECK(pthread_create(&w[i], NULL, worker, (void *)(intptr_t)i) == 0);

    /* 2. */
    pthread_t extra;
    atomic_store(&fault_thread_fail_next, 1);
    int e = pthread_create(&extra, NULL, worker, (void *)(intptr_t)99);
    CHECK_EQ(e, EAGAIN);
    usleep(20000);
    CHECK(pthread_create(&extra, NULL, worker, (void *)(intptr_t)98) == 0);
    printf("fault_thread: the program's pthread_create failing (EAGAIN): the others go on\n");

    /* 3. */
    int nv = nw < 2 ? 2 : nw;
    long cancelled = 0, before = fault_live();
    for (int round = 0; round < ROUNDS; round++) {
        pthread_t v[64];
        for (int i = 0; i < nv; i++)
            CHECK(pthread_create(&v[i], NULL, victim, (void *)(intptr_t)(round * 64 + i)) == 0);
        usleep(20000);
        for (int i = 0; i < nv; i++)
            CHECK(pthread_cancel(v[i]) == 0);
        for (int i = 0; i < nv; i++) {
            void *res;
            CHECK(pthread_join(v[i], &res) == 0);
            CHECK(res == PTHREAD_CANCELED);
            cancelled++;
        }
        /* A transaction that goes irrevocable waits for every registered reader. */
        __transaction_relaxed {
            bank[0] += 0;
            unsafe_call();
        }
    }
    long leaked = fault_live() - before, tracked = atomic_load(&fi_added);
    CHECK(tracked > 0); /* the cancelled threads did allocate (logs, their transactions) */
    usleep(20000); /* the workers' commits (and the orec algorithms' quiescence) go on */
    stop = 1;
    long commits = 0;
    for (int i = 0; i < nw; i++) {
        void *res;
        CHECK(pthread_join(w[i], &res) == 0);
        commits += (long)res;
    }
    void *res;
    CHECK(pthread_join(extra, &res) == 0);
    CHECK(commits > 0 && (long)res > 0);
    CHECK_EQ(total(), 100L * ACCOUNTS);
    if (leaked) {
        fprintf(stderr, "%ld blocks of the cancelled threads were never freed\n", leaked);
        return 1;
    }
    printf("fault_thread: %ld threads cancelled outside transactions in %d rounds: total kept, "
           "0 of their %ld blocks left, the irrevocable transaction after each round completed\n",
           cancelled, ROUNDS, tracked);
    return 0;
}

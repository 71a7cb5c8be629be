/* fork() in a process that uses transactions, with the other threads parked outside transactions
 * at each fork (the pre-fork server pattern where the workers are quiescent while forking;
 * proc_fork_busy.c forks while they run).
 *
 * The parent has 2 threads running transactions (atomic increments, an occasional relaxed one).
 * Three times it lets them run for 20 ms, parks them (each waits on a condition variable outside
 * any transaction), forks a child and resumes them. Each child (where only the forking thread
 * exists) runs transactions: single-threaded increments, then 4 new threads, a cancelled
 * transaction and a relaxed one, with exact results, and exits 0 when all checks hold. Then the
 * parent parks the workers again and forks once more from inside a __transaction_relaxed
 * (irrevocable) transaction; both sides finish that transaction, the child checks the write made
 * before the fork is there and runs transactions again. The parent waits for all children with a
 * 20 s deadline (a hanging child is killed and fails the test), requires exit status 0 from each,
 * and checks its own counters are exact.
 */
// TMTEST: timeout=60
#include <signal.h>
#include <sys/wait.h>

#include "harness.h"

#define NCHILD 3
#define CHILD_THREADS 4

static long ptotal;
static long pcount[2];
static int stop_flag;
static long ctr;       /* used by the children */
static long forked_in; /* written in the relaxed transaction that forks */
static volatile int sink;

static pthread_mutex_t park_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t park_cv = PTHREAD_COND_INITIALIZER;
static int park_req, parked;

static void park_point(void)
{
    if (!__atomic_load_n(&park_req, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&park_mu);
    parked++;
    pthread_cond_broadcast(&park_cv);
    while (park_req)
        pthread_cond_wait(&park_cv, &park_mu);
    parked--;
    pthread_mutex_unlock(&park_mu);
}

static void park_workers(int n)
{
    pthread_mutex_lock(&park_mu);
    __atomic_store_n(&park_req, 1, __ATOMIC_RELEASE);
    while (parked < n)
        pthread_cond_wait(&park_cv, &park_mu);
    pthread_mutex_unlock(&park_mu);
}

static void resume_workers(void)
{
    pthread_mutex_lock(&park_mu);
    __atomic_store_n(&park_req, 0, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&park_cv);
    pthread_mutex_unlock(&park_mu);
}

static void *parent_worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    long i = 0;
    while (!__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE)) {
        park_point();
        if (++i % 128 == 0) {
            __transaction_relaxed {
                sink = (int)i;
                pcount[id]++;
                ptotal++;
            }
        } else {
            __transaction_atomic {
                pcount[id]++;
                ptotal++;
            }
        }
    }
    return NULL;
}

static void *child_worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 5000; i++)
        __transaction_atomic { ctr++; }
    return NULL;
}

/* Runs in a child; returns only on success. */
static void child_transactions(void)
{
    long base;
    __transaction_atomic { base = ctr; }
    for (int i = 0; i < 10000; i++)
        __transaction_atomic { ctr++; }
    CHECK_EQ(ctr, base + 10000);
    th_run(CHILD_THREADS, child_worker);
    CHECK_EQ(ctr, base + 10000 + CHILD_THREADS * 5000);
    __transaction_atomic {
        ctr += 1000;
        if (ctr != -1)
            __transaction_cancel;
    }
    CHECK_EQ(ctr, base + 10000 + CHILD_THREADS * 5000);
    __transaction_relaxed {
        sink = 1;
        ctr++;
    }
    CHECK_EQ(ctr, base + 10001 + CHILD_THREADS * 5000);
    CHECK(_ITM_inTransaction() == th_outsideTransaction);
}

static double deadline;

static int wait_child(pid_t pid, const char *what)
{
    int status;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        CHECK(r >= 0);
        if (r == pid)
            break;
        if (th_now() > deadline) {
            fprintf(stderr, "%s child %d did not finish in time: killing it\n", what, (int)pid);
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return 0;
        }
        usleep(2000);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "%s child %d failed: %s %d\n", what, (int)pid,
                WIFEXITED(status) ? "exit status" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        return 0;
    }
    return 1;
}

int main(void)
{
    th_check_runtime();
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&t[i], NULL, parent_worker, (void *)(intptr_t)i) == 0);

    pid_t kids[NCHILD];
    for (int c = 0; c < NCHILD; c++) {
        usleep(20000);
        park_workers(2);
        fflush(NULL);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            child_transactions();
            _exit(0);
        }
        resume_workers();
        kids[c] = pid;
    }

    /* fork from inside an irrevocable transaction */
    pid_t irr_kid;
    long before;
    usleep(20000);
    park_workers(2);
    fflush(NULL);
    __transaction_relaxed {
        before = forked_in;
        forked_in = before + 1;
        irr_kid = fork(); /* unsafe call: irrevocable from here on (if not already) */
        if (irr_kid == 0)
            forked_in += 10; /* the child's copy only */
    }
    if (irr_kid == 0) {
        CHECK_EQ(forked_in, before + 11);
        child_transactions();
        _exit(0);
    }
    CHECK(irr_kid > 0);
    resume_workers();
    CHECK_EQ(forked_in, before + 1);

    usleep(20000);
    __atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 2; i++)
        CHECK(pthread_join(t[i], NULL) == 0);

    int ok = 1;
    deadline = th_now() + 20; /* for all children together */
    for (int c = 0; c < NCHILD; c++)
        ok &= wait_child(kids[c], "plain");
    ok &= wait_child(irr_kid, "irrevocable-fork");
    CHECK(ok);
    CHECK_EQ(ptotal, pcount[0] + pcount[1]);
    CHECK(pcount[0] > 0 && pcount[1] > 0);
    CHECK_EQ(ctr, 0); /* the children's increments stay in the children */
    printf("proc_fork: %d children ok, parent ran %ld transactions\n", NCHILD + 1, ptotal);
    return 0;
}

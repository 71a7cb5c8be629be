/* Signal handlers and transactions, under the algorithm TMKIT_ALGO names (what a handler may
 * do: docs/abi.md, "Signal handlers"):
 *  1. a handler that runs while its thread is inside a transaction and touches only memory no
 *     transaction accesses (a lock-free atomic, a per-thread array) leaves the transaction
 *     alone: TEST_THREADS threads move money in transactions (that allocate and free) while a
 *     sender queues a real-time signal to them without pause; every signal sent is handled
 *     (queued signals are not merged), some land inside transactions, the total stays, and
 *     the handlers' own data adds up;
 *  2. a handler that runs its own small transaction, where that is allowed: the workers block
 *     the signal around each of their transactions, and a thread that runs no transaction
 *     takes it too; every handler's transaction commits once (its count, written in the
 *     transactions, equals the signals handled) and the total stays;
 *  3. for the figures only (a child; not what a program may do): the same handler
 *     transaction interrupting transactions, the signal not blocked. */
#include "fault_inject.h"
#include "harness.h"
#include "fault_spawn.h"
#include <signal.h>

enum { ACCOUNTS = 64, MAXT = 64 };
static long bank[ACCOUNTS];
static volatile int stop;
static _Atomic long handled, handled_in_tx, sent;
static long hcount;                 /* written only by the handlers' transactions */
static long hscratch[MAXT][8];      /* the handlers' plain data, one row per worker */
static __thread volatile int in_tx; /* set inside the worker's transaction (pure call) */
static __thread int my_id = MAXT - 1;
static int mode;                    /* 1: plain handler; 2 and 3: handler transaction */
static int block_around_tx;

static TH_PURE void enter_tx(void) { in_tx = 1; }

static void handler(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    (void)uc;
    int saved = errno;
    if (in_tx)
        atomic_fetch_add(&handled_in_tx, 1);
    if (mode == 1) {
        for (int i = 0; i < 8; i++)
            hscratch[my_id][i] += 1; /* plain: no transaction reads or writes these */
    } else {
        __transaction_atomic { hcount++; }
    }
    atomic_fetch_add(&handled, 1);
    errno = saved;
}

/* Threads start with SIGRTMIN blocked (run() blocks it around pthread_create) and unblock it
 * once my_id names their own row: a handler that ran before would count in another thread's. */
static void unblock_rt(void)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGRTMIN);
    pthread_sigmask(SIG_UNBLOCK, &s, NULL);
}

static void *worker(void *arg)
{
    my_id = (int)(intptr_t)arg;
    unblock_rt();
    uint64_t seed = (uint64_t)my_id * 977 + 5;
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGRTMIN);
    while (!stop) {
        int a = (int)(th_rand(&seed) % ACCOUNTS), b = (int)(th_rand(&seed) % ACCOUNTS);
        if (block_around_tx)
            pthread_sigmask(SIG_BLOCK, &s, NULL);
        __transaction_atomic {
            enter_tx();
            long *p = (long *)malloc(32);
            for (int k = 0; k < 8; k++) /* a few more words: longer inside */
                bank[(a + k) % ACCOUNTS] -= 1;
            for (int k = 0; k < 8; k++)
                bank[(b + k) % ACCOUNTS] += 1;
            free(p);
        }
        in_tx = 0;
        if (block_around_tx)
            pthread_sigmask(SIG_UNBLOCK, &s, NULL);
    }
    return NULL;
}

static void *idle_thread(void *arg)
{
    (void)arg;
    my_id = MAXT - 1;
    unblock_rt();
    while (!stop)
        usleep(1000); /* signals interrupt the sleep; the handler runs here */
    return NULL;
}

/* Runs the workers (and an idle thread) for `ms` while queueing SIGRTMIN to them, then waits
 * until every signal sent was handled. Returns the number sent. */
static long run(int ms)
{
    int n = th_threads();
    if (n > MAXT - 1)
        n = MAXT - 1;
    pthread_t t[MAXT];
    stop = 0;
    sigset_t rt, old;
    sigemptyset(&rt);
    sigaddset(&rt, SIGRTMIN);
    CHECK(pthread_sigmask(SIG_BLOCK, &rt, &old) == 0); /* inherited by the threads */
    for (int i = 0; i < n; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) == 0);
    CHECK(pthread_create(&t[n], NULL, idle_thread, NULL) == 0);
    CHECK(pthread_sigmask(SIG_SETMASK, &old, NULL) == 0);
    double end = th_now() + ms / 1000.0;
    long k = 0;
    while (th_now() < end) {
        union sigval v = {0};
        pthread_t to = t[k % (n + 1)];
        int e = pthread_sigqueue(to, SIGRTMIN, v);
        if (e == 0)
            atomic_fetch_add(&sent, 1);
        else
            CHECK(e == EAGAIN); /* the queue is full: the next round */
        k++;
        if (k % 64 == 0)
            usleep(200);
    }
    /* every queued signal is delivered before its thread may stop */
    double limit = th_now() + 20;
    while (atomic_load(&handled) < atomic_load(&sent) && th_now() < limit)
        usleep(1000);
    stop = 1;
    for (int i = 0; i <= n; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    return atomic_load(&sent);
}

static long total(void)
{
    long s = 0;
    for (int i = 0; i < ACCOUNTS; i++)
        s += bank[i];
    return s;
}

static void reset(int m, int block)
{
    for (int i = 0; i < ACCOUNTS; i++)
        bank[i] = 100;
    mode = m;
    block_around_tx = block;
    atomic_store(&handled, 0);
    atomic_store(&handled_in_tx, 0);
    atomic_store(&sent, 0);
    hcount = 0;
    memset(hscratch, 0, sizeof hscratch);
}

int main(int argc, char **argv)
{
    th_check_runtime();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    CHECK(sigaction(SIGRTMIN, &sa, NULL) == 0);
    if (argc > 1 && strcmp(argv[1], "child") == 0) { /* 3. */
        alarm(3); /* a deadlock ends here: SIGALRM */
        reset(3, 0);
        long s = run(300);
        printf("sent=%ld handled=%ld in_tx=%ld hcount=%ld total=%ld\n", s,
               atomic_load(&handled), atomic_load(&handled_in_tx), hcount, total());
        return 0;
    }

    alarm(50); /* a hang fails the test */

    /* 1. */
    reset(1, 0);
    long s = run(400);
    CHECK(s > 0);
    CHECK_EQ(atomic_load(&handled), s);
    CHECK_EQ(total(), 100L * ACCOUNTS);
    long hs = 0;
    for (int i = 0; i < MAXT; i++)
        for (int j = 0; j < 8; j++) {
            CHECK_EQ(hscratch[i][j], hscratch[i][0]);
            hs += hscratch[i][j];
        }
    CHECK_EQ(hs, 8 * s);
    long in1 = atomic_load(&handled_in_tx);
    CHECK(in1 > 0); /* some did interrupt transactions */
    printf("fault_signal: plain handler: %ld signals handled, %ld inside transactions; total "
           "kept\n", s, in1);

    /* 2. */
    reset(2, 1);
    s = run(400);
    CHECK(s > 0);
    CHECK_EQ(atomic_load(&handled), s);
    CHECK_EQ(atomic_load(&handled_in_tx), 0);
    CHECK_EQ(hcount, s);
    CHECK_EQ(total(), 100L * ACCOUNTS);
    printf("fault_signal: handler transactions, signal blocked around the workers' "
           "transactions: %ld handled, %ld committed; total kept\n", s, hcount);

    /* 3. */
    struct child_run r;
    fflush(stdout);
    int fd[2];
    CHECK(pipe(fd) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        execl("/proc/self/exe", argv[0], "child", (char *)NULL);
        _exit(126);
    }
    close(fd[1]);
    char out[512] = "";
    ssize_t n = read(fd[0], out, sizeof out - 1);
    out[n > 0 ? n : 0] = 0;
    close(fd[0]);
    CHECK(waitpid(pid, &r.status, 0) == pid);
    char *nl = strchr(out, '\n');
    if (nl)
        *nl = 0;
    if (WIFSIGNALED(r.status))
        printf("fault_signal: (not allowed) handler transactions inside transactions: %s\n",
               WTERMSIG(r.status) == SIGALRM ? "hangs (the 3 s alarm)"
                                             : strsignal(WTERMSIG(r.status)));
    else
        printf("fault_signal: (not allowed) handler transactions inside transactions: exit %d, "
               "%s\n", WEXITSTATUS(r.status), out);
    return 0;
}

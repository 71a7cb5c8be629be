/* A forking -fgnu-tm program for the shared-memory statistics tests.
 *   prog_shm fork N      parent and 3 children each run N transactions at SITE_WORK (2 threads
 *                        each, N/2 per thread) and check their own count; exit 0 if all did.
 *   prog_shm run FILE    runs transactions at SITE_WORK until FILE exists (at most 30 s), for
 *                        watching the counters grow from outside.
 *   prog_shm forkmid N   the main thread runs N transactions at SITE_WORK alone, forks a child
 *                        that runs N more (and exits normally), then runs N more itself.
 *   prog_shm idle N FILE the main thread runs N transactions at SITE_WORK alone, then waits
 *                        until FILE exists (at most 30 s): what the live view shows meanwhile.
 *   prog_shm end N HOW   the main thread runs N transactions at SITE_WORK alone, then ends
 *                        without its exit hooks: HOW is _exit, segv (a null store) or exec
 *                        (execv of /bin/true). The segment must hold all N.
 *   prog_shm killmid FILE 2 threads run transactions at SITE_KILLMID until killed (at most 30 s);
 *                        after each commit returns, the thread adds 1 to its count in FILE
 *                        (two longs, mapped shared), so the count survives a kill -9.
 *   prog_shm killin K [alone]  a second thread runs K transactions at SITE_KILLIN and blocks
 *                        in read() (so that two threads have transacted: the serial modes run);
 *                        then the main thread runs transactions there and kills the process
 *                        with SIGKILL inside its K-th one. Exactly 2K - 1 committed. `alone`:
 *                        no second thread (the single-thread bias runs), K - 1 committed.
 *   prog_shm blocked N FILE  a thread runs N transactions at SITE_WORK, then blocks in read()
 *                        on a pipe; meanwhile the main thread runs transactions at SITE_BUSY
 *                        until FILE exists (at most 30 s), then wakes the blocked thread. */
#include <fcntl.h>
#include <sys/mman.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long counter;
static long per_thread;

static void *work(void *arg)
{
    for (long i = 0; i < per_thread; i++)
        __transaction_atomic { counter++; } /* SITE_WORK */
    return NULL;
}

static int run_threads(long n)
{
    pthread_t t[2];
    per_thread = n / 2;
    counter = 0;
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return counter == 2 * per_thread ? 0 : 1;
}

static long busy;
static volatile long *done_counts; /* killmid: per thread, in a shared mapping */
static int block_pipe[2];

static void *killmid_work(void *arg)
{
    volatile long *mine = &done_counts[(intptr_t)arg];
    time_t end = time(NULL) + 30;
    while (time(NULL) < end)
        for (int i = 0; i < 1000; i++) {
            __transaction_atomic { counter++; } /* SITE_KILLMID */
            *mine += 1;
        }
    return NULL;
}

static long killin_k;

/* transaction_pure: called inside the transaction, which neither instruments nor serializes it */
__attribute__((transaction_pure, noinline)) static void killin_die(long i)
{
    if (i == killin_k)
        kill(getpid(), SIGKILL);
}

static void killin_run(long die_at)
{
    for (long i = 1; i <= killin_k; i++)
        __transaction_atomic { counter++; killin_die(i == die_at ? i : 0); } /* SITE_KILLIN */
}

static void *killin_other(void *arg)
{
    char c;
    killin_run(0);
    __atomic_store_n(&busy, 1, __ATOMIC_RELEASE);
    return read(block_pipe[0], &c, 1) == 1 ? NULL : (void *)1;
}

static void *blocked_work(void *arg)
{
    char c;
    work(arg);
    return read(block_pipe[0], &c, 1) == 1 ? NULL : (void *)1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "fork") == 0) {
        long n = atol(argv[2]);
        pid_t kids[3];
        for (int i = 0; i < 3; i++) {
            kids[i] = fork();
            if (kids[i] < 0)
                return 2;
            if (kids[i] == 0)
                _exit(run_threads(n)); /* _exit: no exit hooks, like a crashed worker */
        }
        int bad = run_threads(n);
        for (int i = 0; i < 3; i++) {
            int st;
            if (waitpid(kids[i], &st, 0) != kids[i] || !WIFEXITED(st) || WEXITSTATUS(st))
                bad = 1;
        }
        return bad;
    }
    if (argc == 3 && strcmp(argv[1], "forkmid") == 0) {
        long n = atol(argv[2]);
        per_thread = n;
        work(NULL);
        pid_t kid = fork();
        if (kid < 0)
            return 2;
        if (kid == 0) {
            work(NULL);
            exit(counter == 2 * n ? 0 : 1);
        }
        work(NULL);
        int st;
        return waitpid(kid, &st, 0) == kid && WIFEXITED(st) && !WEXITSTATUS(st) && counter == 2 * n
                   ? 0 : 1;
    }
    if (argc == 4 && strcmp(argv[1], "idle") == 0) {
        time_t end = time(NULL) + 30;
        per_thread = atol(argv[2]);
        work(NULL);
        while (access(argv[3], F_OK) != 0 && time(NULL) < end)
            usleep(10000);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "end") == 0) {
        per_thread = atol(argv[2]);
        work(NULL);
        if (strcmp(argv[3], "_exit") == 0)
            _exit(0);
        if (strcmp(argv[3], "segv") == 0) {
            *(volatile long *)(uintptr_t)(counter < 0) = 1; /* address 0: SIGSEGV */
            return 3;
        }
        if (strcmp(argv[3], "exec") == 0) {
            char *const args[] = {"true", NULL};
            execv("/bin/true", args);
            return 4;
        }
        return 2;
    }
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "killin") == 0) {
        pthread_t t;
        killin_k = atol(argv[2]);
        if (killin_k < 1 || pipe(block_pipe) != 0)
            return 2;
        if (argc == 3 && pthread_create(&t, NULL, killin_other, NULL) != 0)
            return 2;
        while (argc == 3 && !__atomic_load_n(&busy, __ATOMIC_ACQUIRE))
            usleep(1000);
        killin_run(killin_k);
        return 3; /* not reached */
    }
    if (argc == 3 && strcmp(argv[1], "killmid") == 0) {
        int fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || ftruncate(fd, 2 * sizeof(long)) != 0)
            return 2;
        done_counts = mmap(NULL, 2 * sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (done_counts == MAP_FAILED)
            return 2;
        pthread_t t[2];
        for (intptr_t i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, killmid_work, (void *)i);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "blocked") == 0) {
        time_t end = time(NULL) + 30;
        pthread_t t;
        per_thread = atol(argv[2]);
        if (pipe(block_pipe) != 0 || pthread_create(&t, NULL, blocked_work, NULL) != 0)
            return 2;
        while (access(argv[3], F_OK) != 0 && time(NULL) < end)
            for (int i = 0; i < 1000; i++)
                __transaction_atomic { busy++; } /* SITE_BUSY */
        void *bad;
        if (write(block_pipe[1], "x", 1) != 1 || pthread_join(t, &bad) != 0 || bad)
            return 1;
        return counter == per_thread ? 0 : 1;
    }
    if (argc == 3 && strcmp(argv[1], "run") == 0) {
        time_t end = time(NULL) + 30;
        per_thread = 1000;
        while (access(argv[2], F_OK) != 0 && time(NULL) < end)
            for (long i = 0; i < per_thread; i++)
                __transaction_atomic { counter++; }
        return 0;
    }
    fprintf(stderr, "usage: prog_shm fork N | run STOPFILE | forkmid N | idle N STOPFILE | "
                    "end N _exit|segv|exec | killmid FILE | blocked N FILE\n");
    return 2;
}

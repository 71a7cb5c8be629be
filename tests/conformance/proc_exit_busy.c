/* exit() while other threads are inside transactions.
 *
 * Each scenario runs in a forked child whose threads loop forever in transactions:
 *   A: half atomic (increments), half relaxed (irrevocable: volatile store + a short usleep);
 *   B: all relaxed, so the serial lock is almost always held when exit() runs;
 *   C: all atomic, and a worker thread (not main) calls exit(0).
 * In A and B main sleeps 100 ms and calls exit(0); in C main waits in pthread_join.
 * An atexit handler runs one transaction and reports through a pipe that it ran, so the parent
 * knows exit() really went through the handlers (and that a transaction could still be run
 * there). The parent requires each child to exit within 5 s with status 0 and the handler's byte
 * on the pipe; a child that hangs is killed and fails the test.
 */
#include <signal.h>
#include <sys/wait.h>

#include "harness.h"

// TMTEST: timeout=60

static long counter;
static volatile int sink;
static int report_fd = -1;

static void at_exit_handler(void)
{
    long seen;
    __transaction_atomic {
        counter++;
        seen = counter;
    }
    char c = seen > 1 ? 'A' : 'a'; /* 'A': the workers had made progress */
    ssize_t r = write(report_fd, &c, 1);
    (void)r;
}

static void *atomic_loop(void *arg)
{
    (void)arg;
    for (;;)
        __transaction_atomic { counter++; }
    return NULL;
}

static void *relaxed_loop(void *arg)
{
    (void)arg;
    for (long i = 0;; i++) {
        __transaction_relaxed {
            sink = (int)i;
            counter++;
            if ((i & 7) == 0)
                usleep(50);
        }
    }
    return NULL;
}

static void *exiting_worker(void *arg)
{
    (void)arg;
    usleep(100000);
    exit(0);
}

static void child(char scenario, int wfd)
{
    report_fd = wfd;
    CHECK(atexit(at_exit_handler) == 0);
    int n = th_threads();
    pthread_t t;
    for (int i = 0; i < n; i++) {
        void *(*fn)(void *) = atomic_loop;
        if (scenario == 'B' || (scenario == 'A' && (i & 1)))
            fn = relaxed_loop;
        CHECK(pthread_create(&t, NULL, fn, NULL) == 0);
    }
    if (scenario == 'C') {
        CHECK(pthread_create(&t, NULL, exiting_worker, NULL) == 0);
        pthread_join(t, NULL); /* never returns: the worker exits the process */
        _exit(7);
    }
    usleep(100000);
    exit(0);
}

static int run_scenario(char scenario)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        child(scenario, fds[1]);
        _exit(8);
    }
    close(fds[1]);
    double deadline = th_now() + 5;
    int status = 0;
    pid_t r;
    while ((r = waitpid(pid, &status, WNOHANG)) == 0 && th_now() < deadline)
        usleep(2000);
    CHECK(r >= 0);
    if (r == 0) {
        fprintf(stderr, "scenario %c: child did not exit within 5 s; killing it\n", scenario);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        close(fds[0]);
        return 0;
    }
    char c = 0;
    ssize_t got = read(fds[0], &c, 1);
    close(fds[0]);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "scenario %c: child %s %d\n", scenario,
                WIFEXITED(status) ? "exited with status" : "killed by signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        return 0;
    }
    if (got != 1 || c != 'A') {
        fprintf(stderr, "scenario %c: atexit transaction did not report (got %zd, '%c')\n",
                scenario, got, c ? c : '?');
        return 0;
    }
    return 1;
}

int main(void)
{
    th_check_runtime();
    int ok = 1;
    for (int rep = 0; rep < 3; rep++) {
        ok &= run_scenario('A');
        ok &= run_scenario('B');
        ok &= run_scenario('C');
    }
    CHECK(ok);
    printf("proc_exit_busy: 9 children exited cleanly\n");
    return 0;
}

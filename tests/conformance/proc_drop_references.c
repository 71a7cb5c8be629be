/* _ITM_dropReferences is not supported: calling it inside a transaction must stop the process
 * with a diagnostic that names the function, never silently continue.
 *
 * Two children, each with stdout and stderr redirected into a pipe: one calls
 * _ITM_dropReferences(p, n) in a transaction on the main thread, the other from a second thread
 * while a third thread runs transactions. The parent requires that each child failed (non-zero
 * exit status or a signal) within 5 s, that the captured output mentions _ITM_dropReferences,
 * and that the marker printed after the transaction never appears. (The system libitm prints
 * "libitm: _ITM_dropReferences is not supported" and exits with status 1; only the function name
 * is matched here.)
 */
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include "harness.h"

static long data[8];
static int stop_flag;

static void drop_in_transaction(void)
{
    __transaction_atomic {
        data[0]++; /* an ordinary access so the transaction is not elided */
        _ITM_dropReferences(&data[1], 4 * sizeof data[1]);
        data[5]++;
    }
    printf("AFTER-DROP data[0]=%ld\n", data[0]);
    fflush(stdout);
}

static void *busy(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE))
        __transaction_atomic { data[7]++; }
    return NULL;
}

static void *dropper(void *arg)
{
    (void)arg;
    usleep(10000);
    drop_in_transaction();
    return NULL;
}

static int run_child(int threaded)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[1]);
        if (!threaded) {
            drop_in_transaction();
        } else {
            pthread_t b, d;
            CHECK(pthread_create(&b, NULL, busy, NULL) == 0);
            CHECK(pthread_create(&d, NULL, dropper, NULL) == 0);
            pthread_join(d, NULL);
            __atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
            pthread_join(b, NULL);
        }
        printf("AFTER-DROP child returned normally\n");
        fflush(stdout);
        _exit(0);
    }
    close(fds[1]);

    /* read everything the child prints, then reap it; 5 s for both together */
    char out[4096];
    size_t len = 0;
    double deadline = th_now() + 5;
    int status = 0, eof = 0;
    pid_t r = 0;
    while (!eof && th_now() < deadline) {
        struct pollfd p = { .fd = fds[0], .events = POLLIN };
        if (poll(&p, 1, 50) <= 0)
            continue;
        char scratch[512];
        char *dst = len < sizeof out - 1 ? out + len : scratch;
        size_t room = len < sizeof out - 1 ? sizeof out - 1 - len : sizeof scratch;
        ssize_t got = read(fds[0], dst, room);
        if (got <= 0)
            eof = 1;
        else if (dst == out + len)
            len += (size_t)got;
    }
    out[len] = 0;
    close(fds[0]);
    while ((r = waitpid(pid, &status, WNOHANG)) == 0 && th_now() < deadline)
        usleep(2000);
    if (r != pid) {
        fprintf(stderr, "child did not finish within 5 s\n");
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        return 0;
    }
    int failed = WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0);
    printf("proc_drop_references (%s): child %s %d, output: %s", threaded ? "threaded" : "main",
           WIFEXITED(status) ? "exit status" : "signal",
           WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), len ? out : "(none)\n");
    CHECK(failed);
    CHECK(strstr(out, "_ITM_dropReferences") != NULL);
    CHECK(strstr(out, "AFTER-DROP") == NULL);
    return 1;
}

int main(void)
{
    th_check_runtime();
    CHECK(run_child(0));
    CHECK(run_child(1));
    return 0;
}

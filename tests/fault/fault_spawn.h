/* Runs this program again as a child (argv[1] = "child") with extra environment and an
 * optional address-space limit, and collects its exit status and standard error. */
#ifndef TMKIT_FAULT_SPAWN_H
#define TMKIT_FAULT_SPAWN_H

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

struct child_run {
    int status;       /* waitpid's */
    char err[4096];   /* its standard error, NUL-terminated (truncated) */
};

/* env: NULL-terminated "NAME=value" strings added to ours; as_bytes: RLIMIT_AS, 0 for none;
 * wrap: NULL, or a shell command line that runs the program as "$0" (unshare & co.). */
static __attribute__((unused)) void child_spawn(struct child_run *r, const char *const *env, unsigned long as_bytes,
                        const char *wrap)
{
    int fd[2];
    CHECK(pipe(fd) == 0);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(fd[1], 2);
        close(fd[0]);
        close(fd[1]);
        for (const char *const *e = env; e && *e; e++)
            putenv((char *)*e);
        char self[4096];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0)
            _exit(125);
        self[n] = 0;
        if (as_bytes) {
            struct rlimit rl = {as_bytes, as_bytes};
            if (setrlimit(RLIMIT_AS, &rl) != 0)
                _exit(125);
        }
        if (wrap)
            execl("/bin/sh", "sh", "-c", wrap, self, (char *)NULL);
        else
            execl(self, self, "child", (char *)NULL);
        _exit(126);
    }
    close(fd[1]);
    size_t n = 0;
    ssize_t k;
    while ((k = read(fd[0], r->err + n, sizeof r->err - 1 - n)) > 0)
        n += (size_t)k;
    r->err[n] = 0;
    close(fd[0]);
    CHECK(waitpid(pid, &r->status, 0) == pid);
}

static __attribute__((unused)) int child_ok(const struct child_run *r)
{
    return WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
}

/* The first line of the child's standard error, for the figures. */
static __attribute__((unused)) const char *child_line(const struct child_run *r)
{
    static char line[512];
    size_t i = 0;
    while (r->err[i] && r->err[i] != '\n' && i < sizeof line - 1) {
        line[i] = r->err[i];
        i++;
    }
    line[i] = 0;
    return line;
}

/* A bank workload for children: TEST_THREADS threads move money between accounts in
 * transactions (some allocate), and the total must stay. Exits 0 if it holds. */
enum { CB_ACCOUNTS = 64 };
static long cb_acct[CB_ACCOUNTS];

static void *cb_worker(void *arg)
{
    uint64_t seed = (uint64_t)(intptr_t)arg * 7919 + 1;
    for (long i = 0; i < th_iters(20000); i++) {
        int a = (int)(th_rand(&seed) % CB_ACCOUNTS), b = (int)(th_rand(&seed) % CB_ACCOUNTS);
        __transaction_atomic {
            long *p = (long *)malloc(16);
            cb_acct[a] -= 3;
            cb_acct[b] += 3;
            free(p);
        }
    }
    return NULL;
}

static __attribute__((unused)) int child_bank(void)
{
    for (int i = 0; i < CB_ACCOUNTS; i++)
        cb_acct[i] = 1000;
    /* small stacks: the address-space sweep (fault_map.c) is about the runtime's mappings */
    int n = th_threads();
    pthread_t t[64];
    pthread_attr_t attr;
    CHECK(n <= 64 && pthread_attr_init(&attr) == 0);
    CHECK(pthread_attr_setstacksize(&attr, 256 << 10) == 0);
    for (int i = 0; i < n; i++) {
        int e = pthread_create(&t[i], &attr, cb_worker, (void *)(intptr_t)i);
        if (e) {
            fprintf(stderr, "child: pthread_create: %s\n", strerror(e));
            exit(1);
        }
    }
    for (int i = 0; i < n; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    long sum = 0;
    for (int i = 0; i < CB_ACCOUNTS; i++)
        sum += cb_acct[i];
    CHECK_EQ(sum, 1000L * CB_ACCOUNTS);
    return 0;
}

#endif

/* Too little address space (RLIMIT_AS): the runtime's mappings and allocations fail where
 * they happen: the orec table (4 MiB of zero-fill pages in libitm.so.1, mapped by the dynamic
 * loader), the descriptors and logs (malloc), the threads' stacks (pthread_create, the
 * program's). A child runs the bank workload (fault_spawn.h) under TMKIT_ALGO at limits from
 * where it first reaches its constructors up to where it first succeeds; every run in that
 * range must end cleanly: exit 0 with the right total, or a non-zero exit, or SIGABRT after a
 * "tmkit: " message, never another signal. Below it the loader refuses the program (its own
 * message, exit 127) or the kernel cannot start it; those runs are reported, not judged.
 * The program's .preinit_array marks "loaded" on standard error before any library's
 * constructor runs, which tells the two ranges apart. */
#include "fault_inject.h"
#include "harness.h"
#include "fault_spawn.h"

static void mark_loaded(int argc, char **argv, char **envp)
{
    (void)argc;
    (void)argv;
    for (char **e = envp; e && *e; e++) /* getenv is not ready this early */
        if (strcmp(*e, "FAULT_MAP_CHILD=1") == 0) {
            ssize_t r = write(2, "fault_map: loaded\n", 18);
            (void)r;
        }
}
__attribute__((section(".preinit_array"), used)) static void (*preinit)(int, char **, char **) =
    mark_loaded;

enum { UNIT = 16 << 10 }; /* the limit's step: 16 KiB */

static int loaded(const struct child_run *r) { return strstr(r->err, "fault_map: loaded") != NULL; }

/* The first line after the marker, or the runtime's. */
static const char *after_mark(const struct child_run *r, int runtime)
{
    static char line[256];
    const char *p = strstr(r->err, "fault_map: loaded\n");
    p = p ? p + 18 : r->err;
    if (runtime && strstr(p, "tmkit: "))
        p = strstr(p, "tmkit: ");
    size_t i = 0;
    while (p[i] && p[i] != '\n' && i < sizeof line - 1) {
        line[i] = p[i];
        i++;
    }
    line[i] = 0;
    return line;
}

static const char *const env[] = {"FAULT_MAP_CHILD=1", NULL};

int main(int argc, char **argv)
{
    th_check_runtime();
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return child_bank();
    struct child_run r;
    /* The smallest limit (in UNITs) at which the child succeeds, and the smallest at which it loads:
     * both monotone in the limit. */
    long lo = 1, hi = 4096L * 64; /* 4 GiB */
    child_spawn(&r, env, (unsigned long)hi * UNIT, NULL);
    if (!child_ok(&r)) {
        fprintf(stderr, "the child fails even with 4 GiB: status 0x%x\n%s\n", r.status, r.err);
        return 1;
    }
    while (hi - lo > 1) {
        long mid = (lo + hi) / 2;
        child_spawn(&r, env, (unsigned long)mid * UNIT, NULL);
        if (child_ok(&r))
            hi = mid;
        else
            lo = mid;
    }
    long ok_at = hi;
    lo = 1, hi = ok_at;
    while (hi - lo > 1) {
        long mid = (lo + hi) / 2;
        child_spawn(&r, env, (unsigned long)mid * UNIT, NULL);
        if (loaded(&r))
            hi = mid;
        else
            lo = mid;
    }
    long load_at = hi;
    /* Below: what keeps the program from starting. */
    child_spawn(&r, env, (unsigned long)(load_at - 1) * UNIT, NULL);
    printf("fault_map: below %ld KiB: status 0x%x, '%s'\n", load_at * 16, r.status, child_line(&r));
    /* The range between, in at most 40 steps, each judged. */
    long step = (ok_at - load_at + 39) / 40;
    if (step < 1)
        step = 1;
    int exits = 0, aborts = 0, oks = 0;
    char first_exit[256] = "", first_abort[256] = "";
    for (long mb = load_at; mb < ok_at; mb += step) {
        child_spawn(&r, env, (unsigned long)mb * UNIT, NULL);
        if (!loaded(&r))
            continue; /* the kernel's or the loader's call, not the runtime's */
        if (child_ok(&r)) {
            oks++;
        } else if (WIFEXITED(r.status)) {
            if (!exits++)
                snprintf(first_exit, sizeof first_exit, "%ld KiB: exit %d, '%s'", mb * 16,
                         WEXITSTATUS(r.status), after_mark(&r, 0));
        } else if (WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGABRT &&
                   strstr(r.err, "tmkit: ")) {
            if (!aborts++)
                snprintf(first_abort, sizeof first_abort, "%ld KiB: '%s'", mb * 16, after_mark(&r, 1));
        } else {
            fprintf(stderr, "%ld KiB: the child died without a message: status 0x%x\n%s\n", mb * 16,
                    r.status, r.err);
            return 1;
        }
    }
    printf("fault_map: loads at %ld KiB, succeeds at %ld KiB; between: %d clean exits, %d "
           "aborts with a message, %d successes\n",
           load_at * 16, ok_at * 16, exits, aborts, oks);
    if (*first_exit)
        printf("fault_map:   first exit  %s\n", first_exit);
    if (*first_abort)
        printf("fault_map:   first abort %s\n", first_abort);
    return 0;
}

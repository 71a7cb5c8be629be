/* The statistics segment (TMKIT_STATS_SHM) cannot be made: its file cannot be opened
 * (read-only /dev/shm), mapped (mmap fails), or given its pages (a full /dev/shm). Each time
 * the runtime says so in one line and the program runs on without the segment (a full one was
 * SIGBUS at the first store to a page the sparse file could not get): a child runs
 * the bank workload (fault_spawn.h) under the algorithm TMKIT_ALGO names, and must exit 0
 * with the line on its standard error. The injected faults use fault_inject.h; the real ones
 * mount a read-only and an 8 KiB tmpfs on /dev/shm in a mount namespace of the child's own
 * (unshare -m, or -rm without root), and are reported as skipped where that is not allowed. */
#include "fault_inject.h"
#include "harness.h"
#include "fault_spawn.h"

static char name_env[64], name[48];

static void expect(const char *what, const char *const *env, const char *wrap, const char *msg)
{
    struct child_run r;
    child_spawn(&r, env, 0, wrap);
    if (wrap && !child_ok(&r) && strstr(r.err, "fault_shm: no namespace")) {
        printf("fault_shm: %-28s skipped (no mount namespace here)\n", what);
        return;
    }
    if (!child_ok(&r) || !strstr(r.err, msg) || !strstr(r.err, "running without the shared")) {
        fprintf(stderr, "%s: status 0x%x, want exit 0 and '%s'; stderr:\n%s\n", what, r.status,
                msg, r.err);
        exit(1);
    }
    printf("fault_shm: %-28s exit 0, '%s'\n", what, child_line(&r));
}

int main(int argc, char **argv)
{
    th_check_runtime();
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return child_bank();
    snprintf(name, sizeof name, "fault%d", (int)getpid());
    snprintf(name_env, sizeof name_env, "TMKIT_STATS_SHM=%s", name);
    char path[128];
    snprintf(path, sizeof path, "/dev/shm/tmkit.%s", name);

    const char *open_env[] = {name_env, "TMFAULT_OPEN=shm", NULL};
    expect("open fails (EROFS)", open_env, NULL, ": cannot open /dev/shm/tmkit.");
    const char *map_env[] = {name_env, "TMFAULT_MMAP=shared", NULL};
    expect("mmap fails (ENOMEM)", map_env, NULL, ": cannot map /dev/shm/tmkit.");
    unlink(path);
    const char *size_env[] = {name_env, "TMFAULT_FALLOCATE=1", NULL};
    expect("pages refused (ENOSPC)", size_env, NULL, ": cannot size /dev/shm/tmkit.");
    unlink(path);

    /* The real thing: /dev/shm read-only, and too small for the segment (13 MiB). */
    const char *ns_env[] = {name_env, NULL};
    const char *ro =
        "{ unshare -m true 2>/dev/null && u='unshare -m' || u='unshare -rm'; } && "
        "$u sh -c 'mount -t tmpfs -o ro,size=1m none /dev/shm 2>/dev/null || "
        "{ echo fault_shm: no namespace >&2; exit 1; }; exec \"$0\" child' \"$0\" || exit 1";
    expect("read-only /dev/shm (tmpfs)", ns_env, ro, ": cannot open /dev/shm/tmkit.");
    const char *full =
        "{ unshare -m true 2>/dev/null && u='unshare -m' || u='unshare -rm'; } && "
        "$u sh -c 'mount -t tmpfs -o size=8k none /dev/shm 2>/dev/null || "
        "{ echo fault_shm: no namespace >&2; exit 1; }; exec \"$0\" child' \"$0\" || exit 1";
    expect("full /dev/shm (8 KiB tmpfs)", ns_env, full, ": cannot size /dev/shm/tmkit.");
    return 0;
}

/* The statistics report, written once at exit when TMKIT_STATS asks for it:
 *   TMKIT_STATS=path.json  a versioned JSON profile (docs/stats.md)
 *   TMKIT_STATS=-          a readable table on stderr
 * Sites are given as code addresses plus the object (executable or shared library) and the
 * offset inside it, so tools map them to function and file:line with the object's debug
 * information (PIE and shared objects included), and the object's build id, by which they tell
 * a rebuilt object from the one that ran (also the shared segment's: stats_shm.c). Nothing here
 * can block exit for long: the merge takes one mutex held only for list insertions. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../algo/algo.h"
#include "../core/config.h"
#include "../core/redo.h"
#include "stats.h"

TM_HIDDEN size_t tm_stats_merge(tm_site **out);

static char tm_stats_dest[4096];
static uint64_t tm_stats_tsc0, tm_stats_ns0;
static pid_t tm_stats_pid; /* the process that read TMKIT_STATS; forked children append .PID */

static const char *const tm_stat_names[TM_STAT_N] = {
#define TM_STAT_NAME(name, doc) #name,
    TM_STATS_COUNTERS(TM_STAT_NAME)
#undef TM_STAT_NAME
};

static uint64_t tm_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* dest: the at-exit report's destination, or NULL when only the shared segment is wanted. */
void tm_stats_configure(const char *dest)
{
    if (dest && !*dest)
        return;
    if (dest)
        snprintf(tm_stats_dest, sizeof tm_stats_dest, "%s", dest);
    if (tm_stats_on)
        return;
    /* What the reads add to a timed interval: the least of back-to-back pairs (their latency). */
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < 32; i++) {
        uint64_t a = tm_stats_now(), b = tm_stats_now();
        least = b - a < least ? b - a : least;
    }
    tm_stats_tsc_cost = least;
    /* What a pair costs the thread that times, which sets the sampling stride: the reads'
     * throughput, which the latency above does not show. In an AMD EPYC VM two back-to-back
     * reads differ by 1 cycle, yet each takes ~10 ns; a budget from the latency timed one
     * attempt in ~11 of a tiny transaction, and stats on cost it ~30% (2026-11-23). Floor:
     * TM_STATS_PAIR_MIN cycles, about a pair on the machines measured so far. */
    uint64_t first = tm_stats_now(), last = first;
    for (int i = 0; i < 256; i++)
        last = tm_stats_now();
    uint64_t pair = (last - first) / 128;
    tm_stats_tsc_budget =
        TM_STATS_TIME_BUDGET * (pair > TM_STATS_PAIR_MIN ? pair : TM_STATS_PAIR_MIN);
    tm_stats_tsc0 = __builtin_ia32_rdtsc();
    tm_stats_ns0 = tm_mono_ns();
    tm_stats_pid = getpid();
    tm_stats_on = true;
}

/* The build id search of tm_stats_build_id: the object whose loaded segments hold pc. */
struct tm_build_id_query {
    uintptr_t pc;
    char *out;
};

static int tm_build_id_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct tm_build_id_query *q = arg;
    bool holds = false;
    for (int i = 0; i < info->dlpi_phnum && !holds; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        holds = ph->p_type == PT_LOAD && q->pc >= lo && q->pc - lo < ph->p_memsz;
    }
    if (!holds)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) { /* notes: header, name, desc, each 4-aligned */
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
            const char *name = p + sizeof *n;
            const unsigned char *desc = (const unsigned char *)name + ((n->n_namesz + 3) & ~3u);
            if ((const char *)desc + n->n_descsz > end)
                break;
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
                n->n_descsz <= (TM_STATS_BUILD_ID_HEX - 1) / 2) {
                for (unsigned k = 0; k < n->n_descsz; k++)
                    snprintf(q->out + 2 * k, 3, "%02x", desc[k]);
                return 1;
            }
            p = (const char *)desc + ((n->n_descsz + 3) & ~3u);
        }
    }
    return 1; /* the object of pc, without a build id */
}

void tm_stats_build_id(uintptr_t pc, char out[TM_STATS_BUILD_ID_HEX])
{
    out[0] = 0;
    struct tm_build_id_query q = {pc, out};
    if (pc > 1)
        dl_iterate_phdr(tm_build_id_object, &q);
}

/* An address as "key", and, when it is inside a loaded object, "key_object" and "key_offset"
 * (and with build_id, "key_build_id" if the object has one). */
static void tm_json_addr(FILE *f, const char *key, uintptr_t pc, bool build_id)
{
    Dl_info info;
    fprintf(f, "\"%s\": \"0x%lx\"", key, (unsigned long)pc);
    if (pc > 1 && dladdr((void *)pc, &info) && info.dli_fname) {
        fprintf(f, ", \"%s_object\": \"", key);
        for (const char *p = info.dli_fname; *p; p++)
            fprintf(f, (*p == '"' || *p == '\\') ? "\\%c" : "%c", *p);
        fprintf(f, "\", \"%s_offset\": \"0x%lx\"", key,
                (unsigned long)(pc - (uintptr_t)info.dli_fbase));
        char id[TM_STATS_BUILD_ID_HEX];
        if (build_id && (tm_stats_build_id(pc, id), id[0]))
            fprintf(f, ", \"%s_build_id\": \"%s\"", key, id);
    }
}

static void tm_stats_json(FILE *f, const tm_site *sites, size_t n, double tsc_hz)
{
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[len > 0 ? len : 0] = 0;
    fprintf(f, "{\n  \"tmkit_stats_version\": 1,\n  \"pid\": %d,\n  \"program\": \"%s\",\n",
            (int)getpid(), exe);
    fprintf(f, "  \"algorithm\": \"%s\",\n", tm_config.algo->name);
    if (tm_redo_fallback[0]) { /* why TMKIT_ADAPTIVE_MODES=all ran write-through (redo_check.c) */
        fprintf(f, "  \"redo_fallback\": \"");
        for (const char *p = tm_redo_fallback; *p; p++)
            fprintf(f, (*p == '"' || *p == '\\') ? "\\%c" : "%c", *p);
        fprintf(f, "\",\n");
    }
    fprintf(f, "  \"tsc_hz\": %.0f,\n  \"counters\": [", tsc_hz);
    for (int k = 0; k < TM_STAT_N; k++)
        fprintf(f, "%s\"%s\"", k ? ", " : "", tm_stat_names[k]);
    fprintf(f, "],\n");
    if (tm_config.algo->managed) {
        fprintf(f, "  \"adaptive_modes\": [");
        for (unsigned m = 0, k = 0; m < TM_CM_N_MODES; m++)
            if (tm_cm_mode_allowed(m))
                fprintf(f, "%s\"%s\"", k++ ? ", " : "", tm_cm_mode_name(m));
        fprintf(f, "],\n  \"adaptive_epochs\": {");
        for (unsigned m = 0; m < TM_CM_N_MODES; m++)
            fprintf(f, "%s\"%s\": %llu", m ? ", " : "", tm_cm_mode_name(m),
                    (unsigned long long)tm_cm_epochs(m));
        fprintf(f, "},\n  \"adaptive_probes\": {");
        for (unsigned m = 0; m < TM_CM_N_MODES; m++)
            fprintf(f, "%s\"%s\": %llu", m ? ", " : "", tm_cm_mode_name(m),
                    (unsigned long long)tm_cm_probes(m));
        fprintf(f, "},\n  \"adaptive_switches\": %llu,\n  \"adaptive_grant_trials\": %llu,\n"
                   "  \"adaptive_grants_off_epochs\": %llu,\n  \"adaptive_plain_trials\": %llu,\n"
                   "  \"adaptive_plain_epochs\": %llu,\n  \"adaptive_restarts_without_backoff\": %llu,\n"
                   "  \"adaptive_fair_claims\": %llu,\n  \"adaptive_fair_waits\": %llu,\n"
                   "  \"adaptive_cycles_per_commit\": {",
                (unsigned long long)tm_cm_switches(), (unsigned long long)tm_cm_grant_trials(),
                (unsigned long long)tm_cm_grants_off_epochs(), (unsigned long long)tm_cm_plain_trials(),
                (unsigned long long)tm_cm_plain_epochs(), (unsigned long long)tm_cm_quick_restarts(),
                (unsigned long long)tm_cm_fair_claims(), (unsigned long long)tm_cm_fair_waits());
        for (unsigned m = 0; m < TM_CM_N_MODES; m++)
            fprintf(f, "%s\"%s\": %llu", m ? ", " : "", tm_cm_mode_name(m),
                    (unsigned long long)tm_cm_cost(m));
        fprintf(f, "},\n  \"adaptive_cycles_per_writing_commit\": {");
        for (unsigned m = 0; m < TM_CM_N_MODES; m++)
            fprintf(f, "%s\"%s\": %llu", m ? ", " : "", tm_cm_mode_name(m),
                    (unsigned long long)tm_cm_cost_writing(m));
        fprintf(f, "},\n");
    }
    fprintf(f, "  \"sites\": [");
    for (size_t i = 0; i < n; i++) {
        const tm_site *s = &sites[i];
        fprintf(f, "%s\n    {", i ? "," : "");
        tm_json_addr(f, "site", s->pc, true);
        if (s->irrev_pc) {
            fprintf(f, ", ");
            tm_json_addr(f, "irrevocable_call", s->irrev_pc, false);
        }
        for (int k = 0; k < TM_STAT_N; k++)
            fprintf(f, ", \"%s\": %llu", tm_stat_names[k], (unsigned long long)s->c[k]);
        fprintf(f, ", \"retries_histogram\": [");
        for (int k = 0; k < TM_RETRY_BUCKETS; k++)
            fprintf(f, "%s%llu", k ? ", " : "", (unsigned long long)s->retries[k]);
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ]\n}\n");
}

static void tm_stats_table_out(FILE *f, const tm_site *sites, size_t n, double tsc_hz)
{
    fprintf(f, "tmkit statistics (%s, %zu sites)\n", tm_config.algo->name, n);
    if (tm_redo_fallback[0])
        fprintf(f, "%s\n", tm_redo_fallback);
    fprintf(f, "%-36s %10s %10s %8s %8s %8s %8s %8s %8s %8s %10s\n", "site", "starts", "commits",
            "rd-conf", "wr-conf", "valid", "cancel", "serial", "irrev", "gcc-irr", "us/commit");
    for (size_t i = 0; i < n; i++) {
        const tm_site *s = &sites[i];
        char where[64] = "(other sites)";
        Dl_info info;
        if (s->pc > 1 && dladdr((void *)s->pc, &info) && info.dli_fname) {
            const char *base = strrchr(info.dli_fname, '/');
            snprintf(where, sizeof where, "%s+0x%lx", base ? base + 1 : info.dli_fname,
                     (unsigned long)(s->pc - (uintptr_t)info.dli_fbase));
        }
        double us = s->c[TM_STAT_commits] && tsc_hz > 0
                        ? s->c[TM_STAT_cycles_committed] / tsc_hz * 1e6 / s->c[TM_STAT_commits]
                        : 0;
        fprintf(f, "%-36s %10llu %10llu %8llu %8llu %8llu %8llu %8llu %8llu %8llu %10.3f\n", where,
                (unsigned long long)s->c[TM_STAT_starts], (unsigned long long)s->c[TM_STAT_commits],
                (unsigned long long)s->c[TM_STAT_abort_read_conflict],
                (unsigned long long)s->c[TM_STAT_abort_write_conflict],
                (unsigned long long)s->c[TM_STAT_abort_validation],
                (unsigned long long)s->c[TM_STAT_abort_cancel],
                /* under the serial lock: htm attempts that committed in hardware start on
                 * the serial path (serial_attempts) but never took it */
                (unsigned long long)(s->c[TM_STAT_serial_attempts] + s->c[TM_STAT_abort_serial] -
                                     s->c[TM_STAT_htm_commits]),
                (unsigned long long)s->c[TM_STAT_irrevocable_switches],
                (unsigned long long)s->c[TM_STAT_gcc_irrevocable_starts], us);
    }
    if (tm_config.algo->managed) {
        fprintf(f, "adaptive epochs (~1.5 ms each) by mode:");
        for (unsigned m = 0; m < TM_CM_N_MODES; m++)
            fprintf(f, " %s %llu", tm_cm_mode_name(m), (unsigned long long)tm_cm_epochs(m));
        fprintf(f, "; probes:");
        for (unsigned m = 0; m < TM_CM_N_MODES; m++)
            fprintf(f, " %s %llu", tm_cm_mode_name(m), (unsigned long long)tm_cm_probes(m));
        fprintf(f, "; %llu switches\nadaptive last cost (TSC cycles per commit, 0 = not measured):",
                (unsigned long long)tm_cm_switches());
        for (unsigned m = 0; m < TM_CM_N_MODES; m++)
            fprintf(f, " %s %llu", tm_cm_mode_name(m), (unsigned long long)tm_cm_cost(m));
        fprintf(f, "\nadaptive last cost per writing commit (compared first when both have it):");
        for (unsigned m = 0; m < TM_CM_N_MODES; m++)
            fprintf(f, " %s %llu", tm_cm_mode_name(m), (unsigned long long)tm_cm_cost_writing(m));
        fprintf(f,
                "\nadaptive serial mode: %llu epochs without bias grants, %llu with the plain lock; "
                "%llu trials flipped the grants, %llu the plain lock\n"
                "adaptive restarts without back-off (threads committing ~0.4 us apart or more): %llu; "
                "%llu turns claimed after %u of them, %llu begins waited for one\n",
                (unsigned long long)tm_cm_grants_off_epochs(), (unsigned long long)tm_cm_plain_epochs(),
                (unsigned long long)tm_cm_grant_trials(), (unsigned long long)tm_cm_plain_trials(),
                (unsigned long long)tm_cm_quick_restarts(), (unsigned long long)tm_cm_fair_claims(),
                TM_FAIR_RETRIES, (unsigned long long)tm_cm_fair_waits());
    }
}

__attribute__((destructor)) static void tm_stats_report(void)
{
    if (!tm_stats_on)
        return;
    tm_stats_on = false;
    tm_stats_whole_fold_all(); /* before the shared blocks are marked exited */
    if (tm_stats_shm_on)
        tm_stats_shm_exit();
    if (!tm_stats_dest[0])
        return;
    tm_site *sites;
    size_t n = tm_stats_merge(&sites);
    uint64_t dns = tm_mono_ns() - tm_stats_ns0, dtsc = __builtin_ia32_rdtsc() - tm_stats_tsc0;
    double tsc_hz = dns ? (double)dtsc * 1e9 / (double)dns : 0;
    if (strcmp(tm_stats_dest, "-") == 0) {
        tm_stats_table_out(stderr, sites, n, tsc_hz);
    } else {
        char path[4200];
        if (getpid() == tm_stats_pid)
            snprintf(path, sizeof path, "%s", tm_stats_dest);
        else /* a forked child: its own file next to the parent's */
            snprintf(path, sizeof path, "%s.%d", tm_stats_dest, (int)getpid());
        FILE *f = fopen(path, "w");
        if (!f) {
            fprintf(stderr, "tmkit: cannot write statistics to %s\n", path);
        } else {
            tm_stats_json(f, sites, n, tsc_hz);
            fclose(f);
        }
    }
    free(sites);
}

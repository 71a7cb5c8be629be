/* tmkit-shmdump: reads a shared-memory statistics segment (TMKIT_STATS_SHM, layout in shm.h)
 * without stopping its writers, and prints one snapshot as JSON in the profile format of
 * docs/stats.md (version 1) plus the segment's processes. `tmkit stat` polls it.
 *
 *   tmkit-shmdump NAME       one JSON snapshot (exit 1 if there is no such segment)
 *   tmkit-shmdump --list     the segment names, one per line
 *   tmkit-shmdump --rm NAME  removes a segment
 *
 * Counters are read with relaxed atomic loads: each is exact at some moment (aligned 64-bit
 * words), but a snapshot is not one instant; rates computed from two snapshots are what matters.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "shm.h"

static const char *const sd_names[TM_STAT_N] = {
#define SD_NAME(name, doc) #name,
    TM_STATS_COUNTERS(SD_NAME)
#undef SD_NAME
};

/* The merged sites, keyed by (obj, off); pc is 1 for "other sites", 2 otherwise. */
static tm_site *sd_sites;
static size_t sd_n, sd_cap;

static uint64_t sd_load(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }

static tm_site *sd_find(uint64_t pc, uint32_t obj, uint64_t off)
{
    bool other = pc == 1;
    for (size_t i = 0; i < sd_n; i++)
        if ((sd_sites[i].pc == 1) == other && (other || (sd_sites[i].obj == obj && sd_sites[i].off == off)))
            return &sd_sites[i];
    if (sd_n == sd_cap) {
        sd_cap = sd_cap ? 2 * sd_cap : 64;
        sd_sites = realloc(sd_sites, sd_cap * sizeof *sd_sites);
        if (!sd_sites) {
            fprintf(stderr, "tmkit-shmdump: out of memory\n");
            exit(1);
        }
    }
    tm_site *s = memset(&sd_sites[sd_n++], 0, sizeof *sd_sites);
    s->pc = other ? 1 : 2, s->obj = obj, s->off = off;
    return s;
}

/* Adds one table (a live block, a dead one, or the archive) into the merged sites; returns the
 * table's starts, commits and aborts for the per-process totals. */
static void sd_add(const tm_site_table *t, uint64_t tot[3])
{
    for (size_t i = 0; i <= TM_SITES; i++) {
        const tm_site *s = i < TM_SITES ? &t->site[i] : &t->other;
        /* acquire: pairs with the writer's release store of pc after the key. */
        uint64_t pc = __atomic_load_n(&s->pc, __ATOMIC_ACQUIRE);
        if (!pc || (pc == 1 && sd_load(&s->c[TM_STAT_starts]) == 0))
            continue;
        tm_site one = {0}; /* one reading of s, for the merged site and the totals alike */
        tm_site_add(&one, s);
        tm_site_add(sd_find(pc, s->obj, s->off), &one);
        tot[0] += one.c[TM_STAT_starts];
        tot[1] += one.c[TM_STAT_commits];
        for (int k = TM_STAT_abort_read_conflict; k <= TM_STAT_abort_serial; k++)
            tot[2] += one.c[k];
    }
}

/* The length of the valid UTF-8 sequence at s[0..n), or 0. */
static size_t sd_utf8(const unsigned char *s, size_t n)
{
    size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
    if (!len || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) || /* overlong, surrogate */
        (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
        return 0;
    return len;
}

/* A JSON string of the text in s[0..max) up to its first NUL: a segment's text fields are
 * fixed-size arrays that a writer (or a damaged segment) may have left unterminated; a byte that
 * is not part of valid UTF-8 becomes U+FFFD, so the output is always valid JSON. */
static void sd_strn(const char *s, size_t max)
{
    size_t n = strnlen(s, max);
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        size_t u;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            printf("\\u%04x", c);
        else if (c < 0x80)
            putchar(c);
        else if ((u = sd_utf8((const unsigned char *)s + i, n - i)) != 0)
            fwrite(s + i, 1, u, stdout), i += u - 1;
        else
            fputs("\\ufffd", stdout);
    }
    putchar('"');
}

static void sd_str(const char *s) { sd_strn(s, strlen(s)); }

/* As the at-exit profile (stats_report.c: tm_json_addr), the build id with the site's only. */
static void sd_addr(const tm_shm_segment *g, const char *key, uint32_t obj, uint64_t off,
                    bool build_id)
{
    printf("\"%s\": \"0x%llx\"", key, (unsigned long long)off);
    /* n_objects of a damaged segment may be past the table */
    if (obj < atomic_load_explicit(&g->n_objects, memory_order_acquire) && obj < TM_SHM_OBJECTS) {
        printf(", \"%s_object\": ", key);
        sd_strn(g->objects[obj], TM_SHM_PATH);
        printf(", \"%s_offset\": \"0x%llx\"", key, (unsigned long long)off);
        const char *id = g->object_build_ids[obj];
        if (build_id && id[0] && strnlen(id, TM_STATS_BUILD_ID_HEX) < TM_STATS_BUILD_ID_HEX) {
            printf(", \"%s_build_id\": ", key);
            sd_strn(id, TM_STATS_BUILD_ID_HEX);
        }
    }
}

static double sd_tsc_hz(void)
{
    struct timespec a, b, d = {0, 20 * 1000 * 1000};
    clock_gettime(CLOCK_MONOTONIC, &a);
    uint64_t t0 = __builtin_ia32_rdtsc();
    nanosleep(&d, NULL);
    uint64_t t1 = __builtin_ia32_rdtsc();
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
    return ns > 0 ? (t1 - t0) * 1e9 / ns : 0;
}

static int sd_print(const tm_shm_segment *g, const char *name, const char *path, double tsc_hz);

static int sd_dump(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "/dev/shm/tmkit.%s", name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        fprintf(stderr, "tmkit-shmdump: no segment '%s' (%s): %s\n", name, path, strerror(errno));
        return 1;
    }
    if ((size_t)st.st_size != sizeof(tm_shm_segment)) {
        fprintf(stderr, "tmkit-shmdump: %s: not a tmkit statistics segment of this version\n", path);
        return 1;
    }
    const tm_shm_segment *g = mmap(NULL, sizeof *g, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (g == MAP_FAILED) {
        fprintf(stderr, "tmkit-shmdump: cannot map %s: %s\n", path, strerror(errno));
        return 1;
    }
    return sd_print(g, name, path, sd_tsc_hz());
}

/* Prints the snapshot of the mapped segment g (tests/fuzz/fuzz_shmdump.c calls this on
 * damaged segments): 0, or 1 with a message when g is not a segment of this version. */
static int sd_print(const tm_shm_segment *g, const char *name, const char *path, double tsc_hz)
{
    if (__atomic_load_n(&g->magic, __ATOMIC_ACQUIRE) != TM_SHM_MAGIC ||
        g->version != TM_SHM_VERSION || g->ncounters != TM_STAT_N) {
        fprintf(stderr, "tmkit-shmdump: %s: not a tmkit statistics segment of this version\n", path);
        return 1;
    }
    sd_n = 0;
    printf("{\n  \"tmkit_stats_version\": 1,\n  \"segment\": ");
    sd_str(name);
    printf(",\n  \"generation\": %llu,\n  \"tsc_hz\": %.0f,\n  \"overflow_threads\": %u,\n",
           (unsigned long long)g->generation, tsc_hz, atomic_load(&g->overflow));
    printf("  \"processes\": [");
    const char *program = "", *algo = "";
    int nproc = 0;
    for (int i = -1; i < TM_SHM_BLOCKS; i++) {
        const tm_shm_block *b = i < 0 ? &g->archive : &g->block[i];
        pid_t pid = i < 0 ? 0 : atomic_load_explicit(&b->owner, memory_order_acquire);
        if (i >= 0 && pid == 0)
            continue;
        bool first = true; /* one entry per process: its first block gathers its others */
        for (int j = 0; j < i && first; j++)
            first = !(atomic_load(&g->block[j].owner) == pid && g->block[j].owner_start == b->owner_start);
        if (!first)
            continue;
        uint64_t tot[3] = {0, 0, 0};
        int threads = 0;
        for (int j = i; j < TM_SHM_BLOCKS; j++) {
            const tm_shm_block *c = j < 0 ? &g->archive : &g->block[j];
            if (j >= 0 && (atomic_load(&c->owner) != pid || c->owner_start != b->owner_start))
                continue;
            sd_add(&c->table, tot);
            threads++;
            if (j < 0)
                break;
        }
        if (i < 0 && tot[0] == 0)
            continue;
        bool alive = i >= 0 && atomic_load(&b->state) == TM_SHM_LIVE &&
                     !(kill(pid, 0) != 0 && errno == ESRCH) && tm_shm_proc_start(pid) == b->owner_start;
        printf("%s\n    {\"pid\": %d, \"alive\": %s, \"state\": \"%s\", \"program\": ", nproc++ ? "," : "",
               (int)pid, alive ? "true" : "false",
               i < 0 ? "archived" : alive ? "live" : b->state == TM_SHM_EXITED ? "exited" : "died");
        sd_strn(i < 0 ? "(processes whose blocks were recycled)" : b->program, TM_SHM_PATH);
        printf(", \"algorithm\": ");
        sd_strn(i < 0 ? "" : b->algo, sizeof b->algo);
        printf(", \"threads\": %d, \"starts\": %llu, \"commits\": %llu, \"aborts\": %llu}",
               i < 0 ? 0 : threads, (unsigned long long)tot[0], (unsigned long long)tot[1],
               (unsigned long long)tot[2]);
        if (i >= 0 && !*program)
            program = b->program, algo = b->algo;
    }
    printf("\n  ],\n  \"program\": ");
    sd_strn(program, TM_SHM_PATH);
    printf(",\n  \"algorithm\": ");
    sd_strn(algo, sizeof g->block[0].algo);
    printf(",\n  \"counters\": [");
    for (int k = 0; k < TM_STAT_N; k++)
        printf("%s\"%s\"", k ? ", " : "", sd_names[k]);
    printf("],\n  \"sites\": [");
    for (size_t i = 0; i < sd_n; i++) {
        const tm_site *s = &sd_sites[i];
        printf("%s\n    {", i ? "," : "");
        if (s->pc == 1)
            printf("\"site\": \"0x1\"");
        else
            sd_addr(g, "site", s->obj, s->off, true);
        if (s->irrev_pc) {
            printf(", ");
            sd_addr(g, "irrevocable_call", s->irrev_obj, s->irrev_off, false);
        }
        for (int k = 0; k < TM_STAT_N; k++)
            printf(", \"%s\": %llu", sd_names[k], (unsigned long long)s->c[k]);
        printf(", \"retries_histogram\": [");
        for (int k = 0; k < TM_RETRY_BUCKETS; k++)
            printf("%s%llu", k ? ", " : "", (unsigned long long)s->retries[k]);
        printf("]}");
    }
    printf("\n  ]\n}\n");
    return 0;
}

static int sd_list(void)
{
    DIR *d = opendir("/dev/shm");
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strncmp(e->d_name, "tmkit.", 6) == 0 && e->d_name[6])
            printf("%s\n", e->d_name + 6);
    closedir(d);
    return 0;
}

int main(int argc, char **argv)
{
    const char *usage = "usage: tmkit-shmdump NAME | --list | --rm NAME\n";
    if (argc == 2 && strcmp(argv[1], "--list") == 0)
        return sd_list();
    bool rm = argc == 3 && strcmp(argv[1], "--rm") == 0;
    if (!(argc == 2 && argv[1][0] != '-') && !rm) {
        fputs(usage, stderr);
        return 2;
    }
    const char *name = argv[argc - 1];
    if (!tm_shm_name_valid(name)) {
        fprintf(stderr, "tmkit-shmdump: '%s' is not a valid segment name (" TM_SHM_NAME_RULE ")\n",
                name);
        return 2;
    }
    if (rm) {
        char path[256];
        snprintf(path, sizeof path, "/dev/shm/tmkit.%s", name);
        if (unlink(path) != 0) {
            fprintf(stderr, "tmkit-shmdump: cannot remove %s: %s\n", path, strerror(errno));
            return 1;
        }
        return 0;
    }
    return sd_dump(name);
}

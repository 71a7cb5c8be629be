/* Shared-line counting for the TMKIT_COUNT_LINES build (lines.h, docs/scaling.md). Compiled in
 * every build; empty unless the option is on.
 *
 * Each thread counts in its own block (never freed: the totals are summed at process exit,
 * after the threads that wrote them may have gone; a thread's exit hands its block, counts and
 * all, to the next thread that starts counting, so thread churn does not grow the heap): per
 * kind and phase, the stores and
 * read-modify-writes (`writes`; a failed compare-and-swap counts, it takes the line too) and
 * the distinct cache lines among them (`lines`: a line counts in the phase of its attempt's
 * first write to it; a 64-entry set per attempt, an attempt that writes more distinct lines
 * counts every further write as a new line) and the hand-offs among them (`handoffs`: the line's
 * previous counted access, a write or a qread, was another thread's; a direct-mapped table of
 * 2^16 lines remembers the last thread per line, so lines that collide in it go uncounted).
 * The hand-offs are what the cache moves between cores, but only as far as the runtime's own
 * accesses go: a plain load by another thread that moved the line is not seen. With
 * TMKIT_COUNT_LINES=1 (core/config.c) the
 * process prints the totals to stderr when it exits; otherwise nothing. */
#include "lines.h"

#ifdef TMKIT_COUNT_LINES
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TM_LINES_SEEN 64

typedef struct tm_lines_thr {
    uint64_t writes[TM_LK_N][TM_LP_N], lines[TM_LK_N][TM_LP_N], handoffs[TM_LK_N][TM_LP_N];
    uint64_t id; /* 1, 2, ...: the hand-off table's thread tag */
    uint64_t commits, aborts, overflow;
    uintptr_t seen[TM_LINES_SEEN];
    unsigned nseen, phase;
    _Atomic int in_use; /* a live thread counts in it */
    struct tm_lines_thr *next;
} tm_lines_thr;

unsigned tm_lines_print; /* TMKIT_COUNT_LINES (config.c) */
static _Atomic(tm_lines_thr *) tm_lines_all;
static _Atomic uint64_t tm_lines_ids;
#define TM_LINES_LAST_BITS 16
static _Atomic uint64_t tm_lines_last[1u << TM_LINES_LAST_BITS]; /* line << 16 | thread tag */
static __thread tm_lines_thr *tm_lines_me;

static pthread_key_t tm_lines_key;
static pthread_once_t tm_lines_once = PTHREAD_ONCE_INIT;

/* Thread exit: the block goes back for reuse (its counts stay in it, summed at exit). */
static void tm_lines_release(void *p)
{
    tm_lines_thr *t = p;
    tm_lines_me = NULL;
    atomic_store_explicit(&t->in_use, 0, memory_order_release);
}

static void tm_lines_key_init(void)
{
    if (pthread_key_create(&tm_lines_key, tm_lines_release) != 0)
        abort();
}

static __attribute__((noinline)) tm_lines_thr *tm_lines_claim(void)
{
    pthread_once(&tm_lines_once, tm_lines_key_init);
    tm_lines_thr *t;
    for (t = atomic_load_explicit(&tm_lines_all, memory_order_acquire); t; t = t->next) {
        int expected = 0;
        if (atomic_load_explicit(&t->in_use, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong_explicit(&t->in_use, &expected, 1,
                                                    memory_order_acquire, memory_order_relaxed))
            break;
    }
    if (!t) {
        t = calloc(1, sizeof *t);
        if (!t)
            abort();
        t->in_use = 1;
        t->id = (atomic_fetch_add_explicit(&tm_lines_ids, 1, memory_order_relaxed) + 1) & 0xffff;
        t->next = atomic_load_explicit(&tm_lines_all, memory_order_relaxed);
        while (!atomic_compare_exchange_weak_explicit(&tm_lines_all, &t->next, t,
                                                      memory_order_release, memory_order_relaxed))
            ;
    }
    t->nseen = 0;
    t->phase = TM_LP_BEGIN;
    pthread_setspecific(tm_lines_key, t);
    tm_lines_me = t;
    return t;
}

static inline tm_lines_thr *tm_lines_self(void)
{
    tm_lines_thr *t = tm_lines_me;
    return __builtin_expect(t != NULL, 1) ? t : tm_lines_claim();
}

void tm_lines_note(unsigned kind, unsigned phase, const volatile void *addr)
{
    tm_lines_thr *t = tm_lines_self();
    if (phase == TM_LP_CONTEXT)
        phase = t->phase;
    uintptr_t line = (uintptr_t)addr >> 6;
    t->writes[kind][phase]++;
    uint64_t tag = (uint64_t)line << 16 | t->id;
    uint64_t old = atomic_exchange_explicit(
        &tm_lines_last[(line ^ line >> TM_LINES_LAST_BITS) & ((1u << TM_LINES_LAST_BITS) - 1)], tag,
        memory_order_relaxed);
    if (old >> 16 == (uint64_t)line && old != tag)
        t->handoffs[kind][phase]++;
    if (phase == TM_LP_THREAD) { /* not part of any transaction */
        t->lines[kind][phase]++;
        return;
    }
    for (unsigned i = 0; i < t->nseen; i++)
        if (t->seen[i] == line)
            return;
    if (t->nseen < TM_LINES_SEEN)
        t->seen[t->nseen++] = line;
    else
        t->overflow++;
    t->lines[kind][phase]++;
}

void tm_lines_phase(unsigned phase)
{
    tm_lines_self()->phase = phase;
}

void tm_lines_end(int committed)
{
    tm_lines_thr *t = tm_lines_self();
    if (committed)
        t->commits++;
    else
        t->aborts++;
    t->nseen = 0;
    t->phase = TM_LP_BEGIN;
}

static const char *const tm_lines_kind[TM_LK_N] = {
    "clock", "orec", "serial", "serial_wait", "desc", "cm_own", "cm", "bias", "ids", "qread",
};
static const char *const tm_lines_phase_name[TM_LP_N] = {
    "begin", "read", "write", "commit", "abort", "irrevocable", "thread",
};

__attribute__((destructor)) static void tm_lines_report(void)
{
    if (!tm_lines_print)
        return;
    uint64_t w[TM_LK_N][TM_LP_N] = {{0}}, l[TM_LK_N][TM_LP_N] = {{0}}, h[TM_LK_N][TM_LP_N] = {{0}};
    /* blocks: as many as threads ever counted at the same time */
    uint64_t commits = 0, aborts = 0, overflow = 0, threads = 0;
    for (tm_lines_thr *t = atomic_load_explicit(&tm_lines_all, memory_order_acquire); t;
         t = t->next) {
        threads++;
        commits += t->commits;
        aborts += t->aborts;
        overflow += t->overflow;
        for (unsigned k = 0; k < TM_LK_N; k++)
            for (unsigned p = 0; p < TM_LP_N; p++) {
                w[k][p] += t->writes[k][p];
                l[k][p] += t->lines[k][p];
                h[k][p] += t->handoffs[k][p];
            }
    }
    double c = commits ? (double)commits : 1, a = commits + aborts ? (double)(commits + aborts) : 1;
    fprintf(stderr, "tmkit-lines: blocks=%llu commits=%llu aborts=%llu set_overflow=%llu\n",
            (unsigned long long)threads, (unsigned long long)commits,
            (unsigned long long)aborts, (unsigned long long)overflow);
    for (unsigned k = 0; k < TM_LK_N; k++)
        for (unsigned p = 0; p < TM_LP_N; p++)
            if (w[k][p])
                fprintf(stderr,
                        "tmkit-lines: kind=%s phase=%s writes=%llu lines=%llu handoffs=%llu "
                        "writes_per_commit=%.4f lines_per_commit=%.4f lines_per_attempt=%.4f "
                        "handoffs_per_commit=%.4f\n",
                        tm_lines_kind[k], tm_lines_phase_name[p], (unsigned long long)w[k][p],
                        (unsigned long long)l[k][p], (unsigned long long)h[k][p], w[k][p] / c,
                        l[k][p] / c, l[k][p] / a, h[k][p] / c);
}
#endif

/* Collection of per-site statistics: each descriptor owns a table of sites (open addressing on
 * the site address); tables are never freed (a recycled descriptor keeps counting into its
 * table), so the report can read them at exit whatever threads have done. With TMKIT_STATS_SHM
 * the tables are blocks of the shared segment (stats_shm.c), and each site also records its
 * (object, offset) key, so other processes and the reader can merge it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "../core/config.h"

uint64_t tm_stats_tsc_cost;
uint64_t tm_stats_tsc_budget = TM_STATS_TIME_BUDGET * TM_STATS_PAIR_MIN;
static tm_site_table *tm_stats_tables; /* guarded by tm_stats_lock */
static pthread_mutex_t tm_stats_lock = PTHREAD_MUTEX_INITIALIZER;

static tm_site_table *tm_stats_table(tm_tx *tx)
{
    if (TM_UNLIKELY(!tx->stats)) {
        tm_site_table *t = tm_stats_shm_on ? tm_stats_shm_table() : NULL;
        if (!t) /* private mode, or every shared block is taken: count privately */
            t = calloc(1, sizeof *t);
        if (!t)
            tm_fatal("out of memory allocating a statistics table");
        t->other.pc = 1;
        pthread_mutex_lock(&tm_stats_lock);
        t->next = tm_stats_tables;
        tm_stats_tables = t;
        pthread_mutex_unlock(&tm_stats_lock);
        tx->stats = t;
    }
    return tx->stats;
}

/* The cross-process key of a code address: the containing object and the offset in it. */
static void tm_stats_key(uintptr_t pc, uint32_t *obj, uint64_t *off)
{
    Dl_info info;
    *obj = TM_STATS_NO_OBJ;
    *off = pc;
    if (pc > 1 && dladdr((void *)pc, &info) && info.dli_fname) {
        *obj = tm_stats_shm_object(info.dli_fname, pc);
        *off = pc - (uintptr_t)info.dli_fbase;
    }
}

static tm_site *tm_stats_site(tm_tx *tx, uintptr_t pc)
{
    tm_site_table *t = tm_stats_table(tx);
    size_t h = (size_t)((pc >> 2) * 0x9E3779B97F4A7C15ull >> 56) % TM_SITES;
    for (size_t i = 0; i < TM_SITES; i++, h = (h + 1) % TM_SITES) {
        if (t->site[h].pc == pc)
            return &t->site[h];
        if (t->site[h].pc == 0) {
            if (t->shared)
                tm_stats_key(pc, &t->site[h].obj, &t->site[h].off);
            /* release: a reader of the shared segment that sees pc sees the key. */
            __atomic_store_n(&t->site[h].pc, pc, __ATOMIC_RELEASE);
            return &t->site[h];
        }
    }
    return &t->other;
}

/* The site of pc through the cache (stats.h): the set's way 0 holds the most recent site; a
 * hit in way 1 or a miss moves way 0 to way 1. */
static tm_site *tm_stats_cached_site(tm_tx *tx, uintptr_t pc)
{
    unsigned k = tm_stats_slot(pc), k1 = k + TM_STATS_WAYS_OFF;
    int i = tm_stats_cache_find(tx, pc);
    if (i == (int)k)
        return tx->stats_cache[k];
    tm_site *s = i >= 0 ? tx->stats_cache[i] : tm_stats_site(tx, pc);
    tx->stats_cache[k1] = tx->stats_cache[k];
    tx->stats_cache_pc[k1] = tx->stats_cache_pc[k];
    tx->stats_cache[k] = s;
    tx->stats_cache_pc[k] = pc;
    tx->stats_l0_pc = pc;
    tx->stats_l0 = s;
    return s;
}

/* `counted`: the inline path already counted this attempt down (its site was cached). */
void tm_stats_attempt_slow(tm_tx *tx, bool serial, bool counted)
{
    tm_site *s = tm_stats_cached_site(tx, (uintptr_t)tx->jb0.pc);
    tx->stats_site = s;
    /* Every site's first attempt in this table comes here (its countdown starts at 0), with its
     * properties in tx->prop: before it is counted, mark a site GCC starts irrevocable
     * (tm_site.gcc_irrevocable). Relaxed: only readers of the shared segment read it
     * concurrently (tm_site_add says what one that misses it does). */
    if (TM_UNLIKELY(s->t_stride == 0) && s != &tx->stats->other &&
        tm_prop_gcc_irrevocable(tx->prop))
        __atomic_store_n(&s->gcc_irrevocable, 1u, __ATOMIC_RELAXED);
    s->c[TM_STAT_starts]++;
    if (serial)
        s->c[TM_STAT_serial_attempts]++;
    if (!counted)
        s->t_left--;
    /* The site's countdown ran out: time this attempt, whatever else sent it here, so which
     * attempts are timed depends only on the strides. A site's first attempt stands for
     * itself. If the attempt never ends (its thread exits inside it), the count stays at or
     * below 0 and the site's next attempt is timed instead. */
    tx->stats_t0 = 0;
    if (s->t_left <= 0) {
        if (s->t_stride == 0)
            s->t_stride = 1;
        tx->stats_t0 = tm_stats_now();
    }
}

/* Time of a timed attempt of site s, which ends it, scaled by its stride; draws the site's
 * next stride (see TM_STATS_TIME_BUDGET). stats_t0 is 0 again (the inline attempt relies on
 * it). */
static uint64_t tm_stats_elapsed(tm_tx *tx, tm_site *s)
{
    uint64_t t0 = tx->stats_t0;
    if (!t0)
        return 0;
    tx->stats_t0 = 0;
    uint64_t d = tm_stats_now() - t0;
    d = d > tm_stats_tsc_cost ? d - tm_stats_tsc_cost : 0;
    if (!s)
        return 0;
    uint64_t scaled = d * s->t_stride;
    s->t_avg = s->t_avg ? s->t_avg - s->t_avg / 8 + d / 8 : d;
    uint64_t base = s->t_avg ? tm_stats_tsc_budget / s->t_avg : TM_STATS_STRIDE_MAX;
    base = base < 1 ? 1 : base > TM_STATS_STRIDE_MAX ? TM_STATS_STRIDE_MAX : base;
    if (tm_config.stats_stride) /* TMKIT_STATS_STRIDE: fixed (1 times every attempt) */
        base = tm_config.stats_stride;
    s->t_stride = (uint32_t)(1 + tm_rng_next(tx) % (2 * base - 1)); /* 1 .. 2B-1, mean B */
    s->t_left = (int32_t)s->t_stride;
    return scaled;
}

void tm_stats_commit_slow(tm_tx *tx)
{
    tm_site *s = tx->stats_site;
    if (!s) {
        (void)tm_stats_elapsed(tx, NULL); /* ends a timed attempt, if any */
        return;
    }
    uint64_t reads = tx->rset.n + tm_olog_n(&tx->olog), writes = tx->wset.n + tx->undo.count;
    s->c[TM_STAT_commits]++;
    s->c[TM_STAT_read_set_sum] += reads;
    s->c[TM_STAT_write_set_sum] += writes;
    if (reads > s->c[TM_STAT_read_set_max])
        s->c[TM_STAT_read_set_max] = reads;
    if (writes > s->c[TM_STAT_write_set_max])
        s->c[TM_STAT_write_set_max] = writes;
    s->c[TM_STAT_cycles_committed] += tm_stats_elapsed(tx, s);
    unsigned b = 0;
    for (uint32_t r = tx->retries; r && b < TM_RETRY_BUCKETS - 1; r >>= 1)
        b++;
    s->retries[b]++;
    tx->stats_site = NULL;
}

void tm_stats_abort(tm_tx *tx, tm_abort_reason why)
{
    tm_site *s = tx->stats_site;
    if (!s) {
        (void)tm_stats_elapsed(tx, NULL); /* ends a timed attempt, if any */
        return;
    }
    static const enum tm_stat map[TM_ABORT_REASONS] = {
        [TM_ABORT_READ_CONFLICT] = TM_STAT_abort_read_conflict,
        [TM_ABORT_WRITE_CONFLICT] = TM_STAT_abort_write_conflict,
        [TM_ABORT_VALIDATE] = TM_STAT_abort_validation,
        [TM_ABORT_CANCEL] = TM_STAT_abort_cancel,
        [TM_ABORT_RETRY] = TM_STAT_abort_retry,
        [TM_ABORT_SERIAL] = TM_STAT_abort_serial,
    };
    s->c[map[why]]++;
    s->c[TM_STAT_cycles_aborted] += tm_stats_elapsed(tx, s);
    tx->stats_site = NULL;
}

void tm_stats_irrevocable(tm_tx *tx, uintptr_t caller_pc)
{
    tm_site *s = tx->stats_site;
    if (!s)
        return;
    s->c[TM_STAT_irrevocable_switches]++;
    if (s->irrev_pc != caller_pc) {
        if (tx->stats->shared)
            tm_stats_key(caller_pc, &s->irrev_obj, &s->irrev_off);
        s->irrev_pc = caller_pc;
    }
}

/* A nested __transaction_cancel: the attempt goes on. An attempt counted whole at its start
 * (tm_stats_attempt_whole) has no stats_site; its site is looked up. */
void tm_stats_nested_cancel(tm_tx *tx)
{
    tm_site *s = tx->stats_site;
    if (!s)
        s = tm_stats_cached_site(tx, (uintptr_t)tx->jb0.pc);
    s->c[TM_STAT_abort_cancel]++;
}

/* Waiting time. A wait for the serial lock happens as an attempt begins, before its site is
 * counted, and goes to the site of the attempt's checkpoint (jb0.pc); a writer's quiescence
 * wait goes to its running attempt's site. */
void tm_stats_wait(tm_tx *tx, enum tm_stat which, uint64_t cycles)
{
    if (which == TM_STAT_cycles_quiesce_wait && tx->stats_site)
        tx->stats_site->c[which] += cycles;
    else if (which == TM_STAT_cycles_serial_wait && tx->jb0.pc)
        tm_stats_cached_site(tx, (uintptr_t)tx->jb0.pc)->c[which] += cycles;
}

/* Lock groups (ext/group.c): counted at the site of the call that took them. */
void tm_stats_group(tm_tx *tx, uintptr_t pc, bool exclusive, uint64_t wait_cycles)
{
    tm_site *s = tm_stats_cached_site(tx, pc);
    s->c[exclusive ? TM_STAT_group_locks : TM_STAT_group_enters]++;
    s->c[TM_STAT_cycles_group_wait] += wait_cycles;
}

/* A hardware try of the attempt at jb0.pc ended (core/htm.c, through the hook stats_htm): out of
 * the hardware transaction, so the count stays whatever the try did. */
void tm_stats_htm(tm_tx *tx, unsigned status)
{
    tm_stats_cached_site(tx, (uintptr_t)tx->jb0.pc)->c[tm_stats_htm_counter(status)]++;
}

void tm_stats_group_held(tm_tx *tx, uintptr_t pc, uint64_t cycles)
{
    tm_stats_cached_site(tx, pc)->c[TM_STAT_cycles_group_held] += cycles;
}

/* fork(): the child counts only its own transactions. Blocks of the shared segment belong to
 * the parent (the child claims new ones); private tables are copies of the parent's: zeroed. */
void tm_stats_fork_child(void)
{
    pthread_mutex_init(&tm_stats_lock, NULL); /* another parent thread may have held it */
    if (tm_cur) /* forked inside an attempt counted whole: the parent's commit counts it */
        tm_cur->stats_pending = NULL;
    if (tm_stats_shm_on)
        tm_stats_shm_fork_child();
    tm_site_table **pp = &tm_stats_tables;
    while (*pp) {
        tm_site_table *t = *pp;
        if (t->shared) {
            *pp = t->next;
            continue;
        }
        tm_site_table *next = t->next;
        memset(t, 0, sizeof *t);
        t->other.pc = 1;
        t->next = next;
        pp = &t->next;
    }
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_relaxed)) {
        if (t->stats && t->stats->shared)
            t->stats = NULL;
        t->stats_site = NULL;
        memset(t->stats_cache, 0, sizeof t->stats_cache);
        memset(t->stats_cache_pc, 0, sizeof t->stats_cache_pc);
        t->stats_l0_pc = 0;
        t->stats_l0 = NULL;
        t->stats_w_site = NULL; /* its batch's attempts are the parent's */
        t->stats_w_pc = 0;
        t->stats_t0 = 0;
    }
}

/* ---- merged view for the report (stats_report.c) ----------------------------------------- */

TM_HIDDEN size_t tm_stats_merge(tm_site **out);
size_t tm_stats_merge(tm_site **out)
{
    size_t n = 0, cap = 64;
    tm_site *all = calloc(cap, sizeof *all);
    pthread_mutex_lock(&tm_stats_lock);
    for (tm_site_table *t = tm_stats_tables; t && all; t = t->next) {
        for (size_t i = 0; i <= TM_SITES && all; i++) {
            const tm_site *s = i < TM_SITES ? &t->site[i] : &t->other;
            if (s->pc == 0 || (s->pc == 1 && s->c[TM_STAT_starts] == 0))
                continue;
            size_t j = 0;
            while (j < n && all[j].pc != s->pc)
                j++;
            if (j == n) {
                if (n == cap) {
                    tm_site *grown = realloc(all, 2 * cap * sizeof *all);
                    if (!grown) {
                        free(all);
                        all = NULL;
                        break;
                    }
                    all = grown;
                    cap *= 2;
                }
                memset(&all[n], 0, sizeof all[n]);
                all[n++].pc = s->pc;
            }
            tm_site_add(&all[j], s);
        }
    }
    pthread_mutex_unlock(&tm_stats_lock);
    *out = all;
    return all ? n : 0;
}

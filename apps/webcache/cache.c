/* cache.c — hash table + priority heap with LRU or GDSF replacement (see cache.h).
 *
 * Structure: a fixed array of hash chains (power of two, at least max_entries buckets) and a
 * binary min-heap holding every cached entry, ordered by (priority, tick). Both are sized at
 * creation, so nothing is allocated inside a critical section.
 *   LRU:  priority = tick of the last access (the heap top is the least recently used).
 *   GDSF: priority = L + freq * cost / size (Cherkasova's Greedy-Dual-Size-Frequency); L, the
 *         inflation value, becomes the priority of each evicted entry, so old popularity ages.
 * Limits: an insert first evicts heap tops until count < max_entries and bytes + size <=
 * max_bytes; bodies over max_object_size are refused. Stale entries (expires_ms passed) are
 * removed when a lookup or insert meets them, and are never returned.
 *
 * Synchronization (cache_sync.h): each public operation is one critical section holding only
 * hash, heap, counter and reference-count updates. The hash and the clock are computed before
 * it; entries are built before it (wc_entry_new, cache_entry.c) and freed after it
 * (WC_DEFER_FREE: by WC_DEFER_RUN after the unlock, or in a commit handler in the TM build).
 */
#include "cache.h"
#include "cache_sync.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct wc_cache {
    WC_SYNC_FIELDS
    struct wc_cache_opts o;
    struct wc_entry **buckets;
    size_t mask;
    struct wc_entry **heap; /* capacity o.max_entries */
    size_t n;
    size_t bytes;
    uint64_t tick;
    double inflation;       /* GDSF's L */
    struct wc_cache_stats st;
};

const char *wc_cache_sync_name(void) { return WC_SYNC_NAME; }

static uint64_t wc__monotonic_ms(void *arg)
{
    (void)arg;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t wc_cache_now(const struct wc_cache *c) { return c->o.clock_ms(c->o.clock_arg); }

/* ---- heap (inside the critical section) ---- */

WC_TM_SAFE static int wc__before(const struct wc_entry *a, const struct wc_entry *b)
{
    return a->priority < b->priority || (a->priority == b->priority && a->tick < b->tick);
}

WC_TM_SAFE static void wc__heap_put(struct wc_cache *c, size_t i, struct wc_entry *e)
{
    c->heap[i] = e;
    e->heap_index = i;
}

WC_TM_SAFE static void wc__heap_fix(struct wc_cache *c, size_t i)
{
    struct wc_entry *e = c->heap[i];
    while (i > 0 && wc__before(e, c->heap[(i - 1) / 2])) { /* up */
        wc__heap_put(c, i, c->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    for (;;) { /* down */
        size_t l = 2 * i + 1, m = i;
        struct wc_entry *best = e;
        if (l < c->n && wc__before(c->heap[l], best))
            m = l, best = c->heap[l];
        if (l + 1 < c->n && wc__before(c->heap[l + 1], best))
            m = l + 1, best = c->heap[l + 1];
        if (m == i)
            break;
        wc__heap_put(c, i, best);
        i = m;
    }
    wc__heap_put(c, i, e);
}

WC_TM_SAFE static void wc__heap_remove(struct wc_cache *c, struct wc_entry *e)
{
    size_t i = e->heap_index;
    struct wc_entry *last = c->heap[--c->n];
    if (i != c->n) {
        wc__heap_put(c, i, last);
        wc__heap_fix(c, i);
    }
    e->heap_index = SIZE_MAX;
}

/* ---- table and entry state (inside the critical section) ---- */

WC_TM_SAFE static struct wc_entry *wc__find(struct wc_cache *c, uint64_t h, const char *key,
                                            size_t len)
{
    for (struct wc_entry *e = c->buckets[h & c->mask]; e; e = e->hnext) {
        if (e->hash != h || e->key_len != len)
            continue;
#ifdef WC_SYNC_TM
        if (memcmp(e->key, key, len) == 0) /* tmkit.h's transaction-safe memcmp */
            return e;
#else
        size_t i = 0; /* own loop: the lock build's sections stay free of libc calls, which
                       * `tmkit advise` would report as blockers (tests/advise/webcache.py) */
        while (i < len && e->key[i] == key[i])
            i++;
        if (i == len)
            return e;
#endif
    }
    return NULL;
}

WC_TM_SAFE static void wc__unref(struct wc_entry *e, struct wc_defer *d)
{
    if (--e->refs == 0)
        WC_DEFER_FREE(d, e);
}

/* Takes e out of table and heap and drops the cache's reference. */
WC_TM_SAFE static void wc__unlink(struct wc_cache *c, struct wc_entry *e, struct wc_defer *d)
{
    struct wc_entry **p = &c->buckets[e->hash & c->mask];
    while (*p != e)
        p = &(*p)->hnext;
    *p = e->hnext;
    e->hnext = NULL;
    wc__heap_remove(c, e);
    c->bytes -= e->body_len;
    wc__unref(e, d);
}

WC_TM_SAFE static void wc__touch(struct wc_cache *c, struct wc_entry *e)
{
    e->tick = ++c->tick;
    e->freq++;
    if (c->o.policy == WC_POLICY_LRU)
        e->priority = (double)e->tick;
    else
        e->priority = c->inflation + (double)e->freq * e->cost /
                                         (double)(e->body_len ? e->body_len : 1);
}

WC_TM_SAFE static int wc__stale(const struct wc_entry *e, uint64_t now)
{
    return e->expires_ms != 0 && now >= e->expires_ms;
}

/* ---- public operations: one critical section each ---- */

struct wc_entry *wc_cache_lookup(struct wc_cache *c, const char *key, size_t key_len)
{
    uint64_t h = wc_hash(key, key_len), now = wc_cache_now(c);
    struct wc_defer d = {NULL};
    struct wc_entry *found = NULL;
    WC_CS_BEGIN(c);
    struct wc_entry *e = wc__find(c, h, key, key_len);
    if (e && wc__stale(e, now)) {
        wc__unlink(c, e, &d);
        c->st.expired++;
        e = NULL;
    }
    if (e) {
        wc__touch(c, e);
        wc__heap_fix(c, e->heap_index);
        e->refs++;
        c->st.hits++;
    } else {
        c->st.misses++;
    }
    found = e;
    WC_CS_END(c);
    WC_DEFER_RUN(&d);
    return found;
}

enum wc_insert_result wc_cache_insert(struct wc_cache *c, struct wc_entry *e)
{
    uint64_t now = wc_cache_now(c);
    size_t max_entries = c->o.max_entries, max_bytes = c->o.max_bytes;
    int too_big = e->body_len > c->o.max_object_size;
    struct wc_defer d = {NULL};
    enum wc_insert_result r = WC_INSERTED;
    WC_CS_BEGIN(c);
    struct wc_entry *old = too_big ? NULL : wc__find(c, e->hash, e->key, e->key_len);
    if (old && wc__stale(old, now)) {
        wc__unlink(c, old, &d);
        c->st.expired++;
        old = NULL;
    }
    if (too_big || old) {
        c->st.rejected++;
        r = too_big ? WC_TOO_BIG : WC_EXISTS;
    } else {
        while (c->n >= max_entries || c->bytes + e->body_len > max_bytes) {
            struct wc_entry *victim = c->heap[0];
            if (c->o.policy == WC_POLICY_GDSF)
                c->inflation = victim->priority;
            wc__unlink(c, victim, &d);
            c->st.evictions++;
        }
        struct wc_entry **b = &c->buckets[e->hash & c->mask];
        e->hnext = *b;
        *b = e;
        e->refs++;
        e->freq = 0;
        wc__touch(c, e);
        wc__heap_put(c, c->n++, e);
        wc__heap_fix(c, c->n - 1);
        c->bytes += e->body_len;
        c->st.inserts++;
    }
    WC_CS_END(c);
    WC_DEFER_RUN(&d);
    return r;
}

void wc_cache_release(struct wc_cache *c, struct wc_entry *e)
{
#ifdef WC_SYNC_TM
    /* A one-word transaction (tmkit.h's atomics), not one over the whole cache: ordered with the
     * sections' own reference-count updates, it never conflicts with their other work. */
    (void)c;
    if (tm_atomic_fetch_sub(&e->refs, 1) == 1)
        wc_entry_free(e);
#else
    struct wc_defer d = {NULL};
    WC_CS_BEGIN(c);
    wc__unref(e, &d);
    WC_CS_END(c);
    WC_DEFER_RUN(&d);
#endif
}

void wc_cache_get_stats(struct wc_cache *c, struct wc_cache_stats *out)
{
    WC_CS_BEGIN(c);
    *out = c->st;
    out->entries = c->n;
    out->bytes = c->bytes;
    WC_CS_END(c);
}

int wc_cache_victim(struct wc_cache *c, char *buf, size_t size)
{
#ifdef WC_SYNC_TM
    /* tmkit.h's snprintf is transaction-safe: the key is copied inside the transaction, which
     * needs no reference to keep the entry alive meanwhile. (The transaction is spelled out: this
     * branch is TM-only, and tests/advise/webcache.py checks that the lock build's sections,
     * which `tmkit advise --patch` rewrites, leave no section macro behind.) */
    int found = 0;
    __transaction_atomic {
        if (c->n) {
            snprintf(buf, size, "%s", c->heap[0]->key);
            found = 1;
        }
    }
    return found;
#else
    /* The lock build's sections stay free of libc calls (tests/advise/webcache.py): a
     * reference keeps the entry alive while its key is copied after the section. */
    struct wc_entry *top = NULL;
    WC_CS_BEGIN(c);
    if (c->n) {
        top = c->heap[0];
        top->refs++;
    }
    WC_CS_END(c);
    if (!top)
        return 0;
    snprintf(buf, size, "%s", top->key);
    wc_cache_release(c, top);
    return 1;
#endif
}

/* ---- creation, destruction ---- */

struct wc_cache *wc_cache_new(const struct wc_cache_opts *opts)
{
    if (opts->max_entries < 1 || opts->max_object_size > opts->max_bytes)
        return NULL;
    struct wc_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->o = *opts;
    if (!c->o.clock_ms)
        c->o.clock_ms = wc__monotonic_ms;
    size_t nb = 16;
    while (nb < opts->max_entries)
        nb *= 2;
    c->mask = nb - 1;
    c->buckets = calloc(nb, sizeof *c->buckets);
    c->heap = calloc(opts->max_entries, sizeof *c->heap);
    if (!c->buckets || !c->heap || WC_SYNC_INIT(c) != 0) {
        free(c->buckets);
        free(c->heap);
        free(c);
        return NULL;
    }
    return c;
}

void wc_cache_free(struct wc_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        struct wc_entry *e = c->heap[i];
        e->heap_index = SIZE_MAX;
        if (--e->refs == 0)
            wc_entry_free(e);
    }
    WC_SYNC_DESTROY(c);
    free(c->buckets);
    free(c->heap);
    free(c);
}

const char *wc_cache_check(struct wc_cache *c)
{
    size_t bytes = 0, linked = 0;
    for (size_t i = 0; i < c->n; i++) {
        struct wc_entry *e = c->heap[i];
        if (e->magic != WC_ENTRY_MAGIC)
            return "heap holds a freed entry";
        if (e->heap_index != i)
            return "heap_index disagrees with the heap position";
        if (i > 0 && wc__before(e, c->heap[(i - 1) / 2]))
            return "heap order violated";
        if (e->refs < 1)
            return "cached entry without the cache's reference";
        if (wc__find(c, e->hash, e->key, e->key_len) != e)
            return "heap entry not found in the table";
        bytes += e->body_len;
    }
    for (size_t b = 0; b <= c->mask; b++)
        for (struct wc_entry *e = c->buckets[b]; e; e = e->hnext) {
            if ((e->hash & c->mask) != b)
                return "entry in the wrong bucket";
            if (e->heap_index >= c->n || c->heap[e->heap_index] != e)
                return "table entry missing from the heap";
            linked++;
        }
    if (linked != c->n)
        return "table and heap sizes differ";
    if (bytes != c->bytes)
        return "byte count wrong";
    if (c->n > c->o.max_entries || c->bytes > c->o.max_bytes)
        return "limit exceeded";
    return NULL;
}

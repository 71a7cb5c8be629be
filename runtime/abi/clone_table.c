/* Transactional clone tables.
 *
 * Every object built with -fgnu-tm registers, from its start-up code, a table of
 * {original, transactional clone} pairs; tables are sorted once at registration. Lookups (every
 * indirect call inside a transaction) take no lock: they load the current set of tables, an
 * immutable array published with a release store, and binary-search it, unless the thread's
 * memo of its recent lookups has the function (tm_clone_find). Registration and
 * deregistration (object load and unload) build a new array under a mutex and publish it.
 * Until 2026-11-26 lookups took a pthread reader-writer lock: two atomic read-modify-writes on
 * one shared line per indirect call, which every thread making such calls pulled to its core
 * (15% of STAMP vacation's time, 4 threads, bench/results/scaling).
 * The price: an array or table that a new one replaces is never freed, since a lookup may still
 * be reading it (each set links the one it replaced, so they stay reachable); only loading and
 * unloading objects replaces sets, and only unloading (dlclose) retires tables, so the memory
 * kept is bounded by what the unloaded objects registered (16 bytes a clone).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../core/tx.h"
#include "abi.h"

typedef struct tm_clone_pair {
    void *orig, *clone;
} tm_clone_pair;

typedef struct tm_clone_table {
    const void *key; /* the table pointer the object registered (for deregistration) */
    tm_clone_pair *pairs;
    size_t n;
    uintptr_t lo, hi; /* range of originals: a quick filter */
    uintptr_t *clones; /* the clones' addresses, sorted (tm_clone_is_clone) */
    size_t nclones;
} tm_clone_table;

typedef struct tm_clone_set {
    const struct tm_clone_set *prev; /* the set this one replaced: kept, and reachable */
    size_t n;
    const tm_clone_table *t[];
} tm_clone_set;

static pthread_mutex_t tm_clone_lock = PTHREAD_MUTEX_INITIALIZER; /* writers only */
static _Atomic(const tm_clone_set *) tm_clone_tables;

static int tm_addr_cmp(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

static int tm_pair_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const tm_clone_pair *)a)->orig;
    uintptr_t y = (uintptr_t)((const tm_clone_pair *)b)->orig;
    return x < y ? -1 : x > y;
}

/* Publishes the current set with `add` added (if not NULL) and `drop_key`'s table left out.
 * Under tm_clone_lock. The old set stays allocated (see the top). */
static void tm_clone_publish(const tm_clone_table *add, const void *drop_key)
{
    /* relaxed: writers are serialized by the mutex. */
    const tm_clone_set *old = atomic_load_explicit(&tm_clone_tables, memory_order_relaxed);
    size_t n = old ? old->n : 0;
    tm_clone_set *set = malloc(sizeof *set + (n + 1) * sizeof set->t[0]);
    if (!set)
        tm_fatal("out of memory registering a clone table");
    set->prev = old;
    set->n = 0;
    if (add)
        set->t[set->n++] = add;
    for (size_t i = 0; i < n; i++)
        if (!drop_key || old->t[i]->key != drop_key)
            set->t[set->n++] = old->t[i];
    /* release: a lookup that loads the set sees its tables' contents. */
    atomic_store_explicit(&tm_clone_tables, set, memory_order_release);
}

TM_EXPORT void _ITM_registerTMCloneTable(void *table, size_t n)
{
    tm_clone_table *t = malloc(sizeof *t);
    tm_clone_pair *pairs = malloc((n ? n : 1) * sizeof *pairs);
    uintptr_t *clones = malloc((n ? n : 1) * sizeof *clones);
    if (!t || !pairs || !clones)
        tm_fatal("out of memory registering a clone table of %zu entries", n);
    memcpy(pairs, table, n * sizeof *pairs);
    qsort(pairs, n, sizeof *pairs, tm_pair_cmp);
    /* A transaction_pure function is its own "clone" (GCC lists it so that indirect calls find
     * it): it is not transactional code, so it is left out here. */
    size_t nc = 0;
    for (size_t i = 0; i < n; i++)
        if (pairs[i].clone != pairs[i].orig)
            clones[nc++] = (uintptr_t)pairs[i].clone;
    qsort(clones, nc, sizeof *clones, tm_addr_cmp);
    *t = (tm_clone_table){table, pairs, n, n ? (uintptr_t)pairs[0].orig : 0,
                          n ? (uintptr_t)pairs[n - 1].orig : 0, clones, nc};
    pthread_mutex_lock(&tm_clone_lock);
    tm_clone_publish(t, NULL);
    pthread_mutex_unlock(&tm_clone_lock);
}

TM_EXPORT void _ITM_deregisterTMCloneTable(void *table)
{
    pthread_mutex_lock(&tm_clone_lock);
    tm_clone_publish(NULL, table);
    pthread_mutex_unlock(&tm_clone_lock);
}

/* Binary search of the set's tables for fn's clone, or NULL. */
static void *tm_clone_search(const tm_clone_set *set, uintptr_t key)
{
    for (size_t i = 0; set && i < set->n; i++) {
        const tm_clone_table *t = set->t[i];
        if (key < t->lo || key > t->hi)
            continue;
        size_t lo = 0, hi = t->n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            uintptr_t m = (uintptr_t)t->pairs[mid].orig;
            if (m == key)
                return t->pairs[mid].clone;
            if (m < key)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    return NULL;
}

/* Each thread's memo of its last lookups, direct-mapped, valid for one set of tables. An
 * indirect call inside a transaction is mostly a comparator or a callback that a data
 * structure calls at every node (STAMP's intruder: its red-black tree's and list's compare
 * functions), and the search's branches, which depend on the key, mispredict: 6.7% of
 * intruder's samples at 2 threads were in the search. A hit costs a load of the set pointer
 * (a shared line nobody writes but dlopen/dlclose), a compare and the entry's two loads. The
 * memo names the set it was filled from: a new set (an object loaded or unloaded) empties it.
 * Sets are never freed (see the top), so a set's address is never reused and cannot be
 * mistaken for another's. Only clones found are kept; a miss goes irrevocable anyway. */
#define TM_CLONE_MEMO 16u /* entries, a power of two */
typedef struct tm_clone_memo {
    const tm_clone_set *set;
    tm_clone_pair e[TM_CLONE_MEMO];
} tm_clone_memo;
static __thread tm_clone_memo tm_clone_mine __attribute__((tls_model("initial-exec")));

/* A memo miss: search, and keep what was found in entry e. Out of line, so that the hit's path
 * saves no registers. */
static __attribute__((noinline)) void *tm_clone_fill(tm_clone_memo *m, tm_clone_pair *e,
                                                     const tm_clone_set *set, void *fn)
{
    if (m->set != set) {
        memset(m->e, 0, sizeof m->e);
        m->set = set;
    }
    void *clone = tm_clone_search(set, (uintptr_t)fn);
    if (clone)
        *e = (tm_clone_pair){fn, clone};
    return clone;
}

static inline __attribute__((always_inline)) void *tm_clone_find(void *fn)
{
    uintptr_t key = (uintptr_t)fn;
    /* acquire: pairs with the release store in tm_clone_publish. */
    const tm_clone_set *set = atomic_load_explicit(&tm_clone_tables, memory_order_acquire);
    tm_clone_memo *m = &tm_clone_mine;
    /* functions start 16-byte aligned at -O2: drop those bits, fold in higher ones */
    tm_clone_pair *e = &m->e[(key >> 4 ^ key >> 10) & (TM_CLONE_MEMO - 1)];
    if (__builtin_expect(m->set == set && e->orig == fn && fn, 1))
        return e->clone;
    return tm_clone_fill(m, e, set, fn);
}

/* Is `fn` the start of a registered transactional clone? (abi/interpose.c: who called.) */
bool tm_clone_is_clone(uintptr_t fn)
{
    /* acquire: as in tm_clone_find. */
    const tm_clone_set *set = atomic_load_explicit(&tm_clone_tables, memory_order_acquire);
    for (size_t i = 0; set && i < set->n; i++) {
        const tm_clone_table *t = set->t[i];
        size_t lo = 0, hi = t->nclones;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (t->clones[mid] == fn)
                return true;
            if (t->clones[mid] < fn)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    return false;
}

TM_EXPORT void *_ITM_getTMCloneOrIrrevocable(void *fn)
{
    void *clone = tm_clone_find(fn);
    if (clone)
        return clone;
    tm_go_irrevocable(tm_cur, (uintptr_t)__builtin_frame_address(0),
                      (uintptr_t)__builtin_return_address(0));
    return fn;
}

TM_EXPORT void *_ITM_getTMCloneSafe(void *fn)
{
    void *clone = tm_clone_find(fn);
    if (!clone)
        tm_fatal("_ITM_getTMCloneSafe: function %p has no transactional clone (an indirect call "
                 "in an atomic transaction reached code not marked transaction_safe)", fn);
    return clone;
}

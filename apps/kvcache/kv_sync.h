/* kv_sync.h — the one place where kvcache's builds differ.
 *
 * The server is written once, in memcached 1.4's synchronization shape, with three locks:
 *   cache_lock  the hash table, the LRU lists, item link state, CAS ids (reference counts are
 *               atomic: see below)
 *   slabs_lock  the slab allocator (size classes, free lists, the memory limit)
 *   stats_lock  the global statistics (kv_gstats)
 * Lock order: cache_lock -> slabs_lock -> stats_lock (a section may take a later lock inside an
 * earlier one, never the reverse). Per-worker statistics have their own per-thread mutex in every
 * build (as in memcached; they are not part of the experiment).
 *
 * Each build sets four switches (CMakeLists.txt):
 *   KV_TM_CACHE  0: cache_lock is a pthread mutex
 *                1: its sections are __transaction_relaxed, the functions they call are
 *                   transaction_callable; anything unsafe inside (the slabs and stats mutexes,
 *                   the maintainer's wake-up) stays where it is and makes the transaction
 *                   serial-irrevocable ("naive")
 *                2: its sections are __transaction_atomic, the functions they call are
 *                   transaction_safe; what cannot run inside moves out: frees of items and stats
 *                   updates become commit handlers, the maintainer's wake-up a commit handler,
 *                   and slabs_lock (if still a lock) is taken BEFORE the transaction by the
 *                   sections that allocate (the paper's lock-order swap)
 *   KV_TM_SLABS  1: slabs_lock's sections are __transaction_atomic
 *   KV_TM_STATS  1: stats_lock's sections are __transaction_atomic
 *   KV_TMKIT     1: tmkit.h's extras: tm_counter_t for the global statistics, tm_cond_t for the
 *                   maintainer (needs KV_TM_CACHE=2, KV_TM_SLABS=1, KV_TM_STATS=1)
 * Sections are written `KV_CACHE_BEGIN(); ... KV_CACHE_END();` with no return, break or goto
 * leaving them (results go through locals).
 */
#ifndef KV_SYNC_H
#define KV_SYNC_H

#include <pthread.h>

#ifndef KV_TM_CACHE
#define KV_TM_CACHE 0
#endif
#ifndef KV_TM_SLABS
#define KV_TM_SLABS 0
#endif
#ifndef KV_TM_STATS
#define KV_TM_STATS 0
#endif
#ifndef KV_TMKIT
#define KV_TMKIT 0
#endif
#ifndef KV_VARIANT
#define KV_VARIANT "baseline"
#endif

#if KV_TMKIT && !(KV_TM_CACHE == 2 && KV_TM_SLABS && KV_TM_STATS)
#error "KV_TMKIT needs KV_TM_CACHE=2 KV_TM_SLABS=1 KV_TM_STATS=1"
#endif

#define KV_ANY_TM (KV_TM_CACHE || KV_TM_SLABS || KV_TM_STATS)
#if KV_ANY_TM
#include "tmkit.h"
#endif

/* Helpers that touch no lock and may run inside any transaction. */
#if KV_ANY_TM
#define KV_TM_SAFE __attribute__((transaction_safe))
#else
#define KV_TM_SAFE
#endif

extern pthread_mutex_t kv_cache_lock, kv_slabs_lock, kv_stats_lock;

/* ---- cache_lock ---- */
#if KV_TM_CACHE == 0
#define KV_CACHE_FN
#define KV_CACHE_BEGIN() pthread_mutex_lock(&kv_cache_lock)
#define KV_CACHE_END() pthread_mutex_unlock(&kv_cache_lock)
#elif KV_TM_CACHE == 1
#define KV_CACHE_FN __attribute__((transaction_callable))
#define KV_CACHE_BEGIN() __transaction_relaxed {
#define KV_CACHE_END() }
#else
#define KV_CACHE_FN __attribute__((transaction_safe))
#define KV_CACHE_BEGIN() __transaction_atomic {
#define KV_CACHE_END() }
#endif

/* ---- slabs_lock ----
 * KV_SLABS_BEGIN/END: a slabs section that never runs inside a cache section (frees deferred to
 * commit, stats slabs). KV_SLABS_IN_BEGIN/END: the one inside cache sections (allocation). When
 * the cache is atomic and slabs_lock a lock, the inner one is empty and KV_SLABS_SWAP_BEGIN/END,
 * around every cache section that may allocate, hold slabs_lock outside the transaction. */
#if KV_TM_SLABS
#define KV_SLABS_BEGIN() __transaction_atomic {
#define KV_SLABS_END() }
#else
#define KV_SLABS_BEGIN() pthread_mutex_lock(&kv_slabs_lock)
#define KV_SLABS_END() pthread_mutex_unlock(&kv_slabs_lock)
#endif
#if KV_TM_CACHE == 2 && !KV_TM_SLABS
#define KV_SLABS_SWAPPED 1
#define KV_SLABS_IN_BEGIN() do {
#define KV_SLABS_IN_END() } while (0)
/* The commit handlers that free items run at the commit, inside the swap region, on the thread
 * that holds slabs_lock: kv_slabs_free then must not take it again (kv_slabs_held). */
extern __thread int kv_slabs_held;
#define KV_SLABS_SWAP_BEGIN() (pthread_mutex_lock(&kv_slabs_lock), kv_slabs_held = 1)
#define KV_SLABS_SWAP_END() (kv_slabs_held = 0, pthread_mutex_unlock(&kv_slabs_lock))
#define KV_SLABS_FREE_BEGIN()                                                                     \
    int kv__own = !kv_slabs_held;                                                                 \
    if (kv__own)                                                                                  \
        pthread_mutex_lock(&kv_slabs_lock)
#define KV_SLABS_FREE_END()                                                                       \
    if (kv__own)                                                                                  \
    pthread_mutex_unlock(&kv_slabs_lock)
#else
#define KV_SLABS_SWAPPED 0
#define KV_SLABS_IN_BEGIN() KV_SLABS_BEGIN()
#define KV_SLABS_IN_END() KV_SLABS_END()
#define KV_SLABS_SWAP_BEGIN() ((void)0)
#define KV_SLABS_SWAP_END() ((void)0)
#define KV_SLABS_FREE_BEGIN() KV_SLABS_BEGIN()
#define KV_SLABS_FREE_END() KV_SLABS_END()
#endif

/* ---- items freed inside a cache section ----
 * Atomic cache with a slabs lock: the free is a commit handler (it takes slabs_lock after the
 * commit, never for an attempt that rolls back). Otherwise: freed in place, inside the section. */
struct kv_item;
#if KV_SLABS_SWAPPED
void kv_slabs_free(struct kv_item *it); /* takes slabs_lock: never inside a transaction */
#define KV_DEFER_FREE(it)                                                                         \
    do {                                                                                          \
        struct kv_item *kv__dead = (it);                                                          \
        tm_on_commit(kv__dead) { kv_slabs_free(kv__dead); }                                       \
    } while (0)
#else
void kv_slabs_free(struct kv_item *it) KV_CACHE_FN;
#define KV_DEFER_FREE(it) kv_slabs_free(it)
#endif

/* ---- stats_lock ----
 * KV_STAT_ADD(field, delta) on a global counter (kv_stats.h's KV_GSTATS list). */
#if KV_TMKIT
typedef tm_counter_t kv_counter_t;
#define KV_COUNTER_INIT TM_COUNTER_INITIALIZER
#define KV_STAT_ADD(f, d) tm_counter_add(&kv_gstats.f, (long)(d))
#define KV_STAT_GET(f) tm_counter_read(&kv_gstats.f)
#else
typedef long kv_counter_t;
#define KV_COUNTER_INIT 0
#define KV_STAT_GET(f) (kv_gstats.f)
#if KV_TM_STATS
#define KV_STATS_BEGIN() __transaction_atomic {
#define KV_STATS_END() }
#define KV_STAT_ADD(f, d)                                                                         \
    do {                                                                                          \
        long kv__d = (long)(d);                                                                   \
        __transaction_atomic { kv_gstats.f += kv__d; }                                            \
    } while (0)
#else
#define KV_STATS_BEGIN() pthread_mutex_lock(&kv_stats_lock)
#define KV_STATS_END() pthread_mutex_unlock(&kv_stats_lock)
#if KV_TM_CACHE == 2
/* inside an atomic cache section: applied after the commit, under stats_lock */
#define KV_STAT_ADD(f, d)                                                                         \
    do {                                                                                          \
        long kv__d = (long)(d);                                                                   \
        tm_on_commit(kv__d)                                                                       \
        {                                                                                         \
            pthread_mutex_lock(&kv_stats_lock);                                                   \
            kv_gstats.f += kv__d;                                                                 \
            pthread_mutex_unlock(&kv_stats_lock);                                                 \
        }                                                                                         \
    } while (0)
#else
#define KV_STAT_ADD(f, d)                                                                         \
    do {                                                                                          \
        pthread_mutex_lock(&kv_stats_lock);                                                       \
        kv_gstats.f += (d);                                                                       \
        pthread_mutex_unlock(&kv_stats_lock);                                                     \
    } while (0)
#endif
#endif
#endif

/* ---- item reference counts (kv_items.c) ----
 * As in memcached 1.4, a linked item holds one reference for the table, and the last release
 * (of a connection done copying the value, outside any cache section) frees the item without
 * taking cache_lock: the count is updated by atomic operations, inside and outside the sections.
 *   KV_REF_GET(it), KV_REF_INC(it), KV_REF_DEC_IS_LAST(it)   inside a cache section
 *   KV_REF_PUT_IS_LAST(it)                                   outside any section (kv_release)
 *   lock cache: GCC's __atomic builtins (memcached's refcount_incr/decr)
 *   TM cache:   plain accesses inside (the section's transaction covers them); outside, a small
 *               __transaction_atomic of its own, as the paper's port wrapped each atomic (a
 *               builtin would bypass the runtime: a transaction reading the count would miss it)
 *   tmkit:      tm_atomic_* inside and outside (tmkit.h: a one-word transaction outside, part of
 *               the enclosing transaction inside) */
#if KV_TM_CACHE == 0
#define KV_REF_GET(it) __atomic_load_n(&(it)->refcount, __ATOMIC_RELAXED)
#define KV_REF_INC(it) ((void)__atomic_fetch_add(&(it)->refcount, 1, __ATOMIC_RELAXED))
/* acq_rel: the last holder's free sees every other holder's accesses (their releases). */
#define KV_REF_DEC_IS_LAST(it) (__atomic_sub_fetch(&(it)->refcount, 1, __ATOMIC_ACQ_REL) == 0)
#define KV_REF_PUT_IS_LAST(it) KV_REF_DEC_IS_LAST(it)
#elif KV_TMKIT
#define KV_REF_GET(it) tm_atomic_load(&(it)->refcount)
#define KV_REF_INC(it) ((void)tm_atomic_fetch_add(&(it)->refcount, 1))
#define KV_REF_DEC_IS_LAST(it) (tm_atomic_fetch_sub(&(it)->refcount, 1) == 1)
#define KV_REF_PUT_IS_LAST(it) KV_REF_DEC_IS_LAST(it)
#else
#define KV_REF_GET(it) ((it)->refcount)
#define KV_REF_INC(it) ((void)(it)->refcount++)
#define KV_REF_DEC_IS_LAST(it) (--(it)->refcount == 0)
static inline int kv_ref_put_is_last(int32_t *refs)
{
    int last;
    __transaction_atomic { last = --*refs == 0; }
    return last;
}
#define KV_REF_PUT_IS_LAST(it) kv_ref_put_is_last(&(it)->refcount)
#endif

/* ---- the maintainer's wake-up (hash table expansion) ----
 * KV_MAINT_SIGNAL() inside a cache section after setting kv_assoc.expand_wanted.
 *   lock cache:  pthread_cond_signal on a condition tied to cache_lock (memcached's shape)
 *   cache-naive: the same call where it stands, inside the relaxed transaction: it takes
 *                maint_lock, sets kv_maint_pending and signals a condition tied to maint_lock;
 *                the unsafe calls make that transaction serial-irrevocable (the paper's naive
 *                shape: nothing moved out, relaxed wherever anything unsafe is called; it happens
 *                once per table expansion)
 *   TM cache:    the same, as a commit handler (the paper's optimized shape)
 *   tmkit:       tm_cond_signal (takes effect at commit); the maintainer waits in tm_atomic_retry
 * The waiting side (kv_assoc.c) never starts a transaction while it holds maint_lock: an
 * irrevocable transaction that waits for maint_lock would otherwise wait for it forever. */
extern pthread_cond_t kv_maint_cond;
extern pthread_mutex_t kv_maint_lock;
extern int kv_maint_pending; /* under maint_lock: a wake-up the maintainer has not taken yet */
#define KV_MAINT_WAKE()                                                                           \
    do {                                                                                          \
        pthread_mutex_lock(&kv_maint_lock);                                                       \
        kv_maint_pending = 1;                                                                     \
        pthread_cond_signal(&kv_maint_cond);                                                      \
        pthread_mutex_unlock(&kv_maint_lock);                                                     \
    } while (0)
#if KV_TMKIT
extern tm_cond_t kv_maint_tmcond;
#define KV_MAINT_SIGNAL() tm_cond_signal(&kv_maint_tmcond)
#elif KV_TM_CACHE == 1
#define KV_MAINT_SIGNAL() KV_MAINT_WAKE()
#elif KV_TM_CACHE == 2
#define KV_MAINT_SIGNAL()                                                                         \
    do {                                                                                          \
        tm_on_commit() { KV_MAINT_WAKE(); }                                                       \
    } while (0)
#else
#define KV_MAINT_SIGNAL() pthread_cond_signal(&kv_maint_cond)
#endif

#endif

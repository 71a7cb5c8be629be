/* cache_sync.h — the one place where the lock and TM builds of the cache differ.
 *
 * The cache (cache.c) is written once. Each critical section is written as ordinary lock-based
 * C would write it:
 *
 *     WC_CS_BEGIN(cache);
 *     ... hash, heap, counter and reference-count updates; WC_DEFER_FREE(&defer, entry) ...
 *     WC_CS_END(cache);
 *     WC_DEFER_RUN(&defer);          (only where the section may drop a last reference)
 *
 * Work that must wait until the section is over (freeing an entry whose last reference was
 * dropped) goes through WC_DEFER_FREE. Functions called inside a section are marked WC_TM_SAFE.
 *
 *   WC_SYNC_LOCK (builds webcache-lock, webcache-nocache): one pthread mutex per cache, as
 *     Apache's mod_mem_cache. WC_CS_BEGIN / WC_CS_END are exactly pthread_mutex_lock /
 *     pthread_mutex_unlock of the cache's mutex (so `tmkit advise --patch` can turn the sections
 *     into transactions, docs/advise.md). Deferred frees are chained on a list local to the
 *     caller and run by WC_DEFER_RUN, a separate statement after the unlock.
 *   WC_SYNC_TM (webcache-tm, compiled with -fgnu-tm): the section is __transaction_atomic; a
 *     deferred free is a commit handler (tm_on_commit from include/tmkit.h), so it runs once,
 *     after the outermost commit, and never for an attempt that rolls back; WC_DEFER_RUN does
 *     nothing.
 *
 * Either way the free happens outside the section and the section's logic is identical.
 * Exactly one of WC_SYNC_LOCK / WC_SYNC_TM is defined by the build (CMakeLists.txt).
 */
#ifndef WC_CACHE_SYNC_H
#define WC_CACHE_SYNC_H

#include <pthread.h>

struct wc_entry;
void wc_entry_free(struct wc_entry *e); /* cache_entry.c; never called inside a section */

/* Entries whose free was deferred by the lock build (unused by the TM build). */
struct wc_defer {
    struct wc_entry *head;
};

#if defined(WC_SYNC_TM) == defined(WC_SYNC_LOCK)
#error "define exactly one of WC_SYNC_TM and WC_SYNC_LOCK"
#endif

#ifdef WC_SYNC_TM
#include "tmkit.h"

#define WC_SYNC_NAME "tm"
#define WC_TM_SAFE __attribute__((transaction_safe))
#define WC_SYNC_FIELDS /* nothing: transactions need no lock object */
#define WC_SYNC_INIT(c) ((void)(c), 0)
#define WC_SYNC_DESTROY(c) ((void)(c))
/* `WC_CS_BEGIN(c);` opens the transaction's block (the `;` is an empty statement in it) and
 * `WC_CS_END(c);` closes it. */
#define WC_CS_BEGIN(c) (void)(c); __transaction_atomic {
#define WC_CS_END(c) }
/* The entry pointer is captured by value; the handler runs after the outermost commit. */
#define WC_DEFER_FREE(d, e)                                                                     \
    do {                                                                                        \
        struct wc_entry *wc__dead = (e);                                                        \
        (void)(d);                                                                              \
        tm_on_commit(wc__dead) { wc_entry_free(wc__dead); }                                     \
    } while (0)
#define WC_DEFER_RUN(d) ((void)(d))

#else /* WC_SYNC_LOCK */

#define WC_SYNC_NAME "lock"
#define WC_TM_SAFE
#define WC_SYNC_FIELDS pthread_mutex_t lock;
#define WC_SYNC_INIT(c) pthread_mutex_init(&(c)->lock, NULL)
#define WC_SYNC_DESTROY(c) pthread_mutex_destroy(&(c)->lock)
#define WC_CS_BEGIN(c) pthread_mutex_lock(&(c)->lock)
#define WC_CS_END(c) pthread_mutex_unlock(&(c)->lock)
#define WC_DEFER_FREE(d, e)                                                                     \
    do {                                                                                        \
        (e)->defer_next = (d)->head;                                                            \
        (d)->head = (e);                                                                        \
    } while (0)
#define WC_DEFER_RUN(d)                                                                         \
    do {                                                                                        \
        while ((d)->head) {                                                                     \
            struct wc_entry *wc__dead = (d)->head;                                              \
            (d)->head = wc__dead->defer_next;                                                   \
            wc_entry_free(wc__dead);                                                            \
        }                                                                                       \
    } while (0)
#endif

#endif

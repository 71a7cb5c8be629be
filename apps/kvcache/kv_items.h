/* kv_items.h — what the item module's two files share (kv_items.c: allocation, link/unlink,
 * LRU lists; kv_items_stats.c: `stats items`, their reset, `stats cachedump`). Everything here is
 * guarded by cache_lock: read and written only inside cache sections.
 */
#ifndef KV_ITEMS_H
#define KV_ITEMS_H

#include "kv.h"

#define KV_NCLS 65

/* Per-class counters (`stats items`), reset by `stats reset`. */
struct kv_cls_stats {
    long evicted;           /* live items evicted */
    long evicted_nonzero;   /* ... that had an expiry time */
    long evicted_time;      /* seconds since the last access of the last one evicted */
    long evicted_unfetched; /* ... never fetched */
    long outofmemory;       /* allocations that failed */
    long reclaimed;         /* dead items whose chunk was reused */
    long expired_unfetched; /* ... never fetched */
    long reflocked;         /* tail items skipped because someone held them */
};

extern kv_item *kv_heads[KV_NCLS], *kv_tails[KV_NCLS]; /* LRU lists, newest at the head */
extern long kv_sizes[KV_NCLS], kv_bytes[KV_NCLS]; /* items linked, their header+key+value */
extern struct kv_cls_stats kv_cstats[KV_NCLS];

/* 0 if `it` is alive, else KV_DEAD_EXPIRED or KV_DEAD_FLUSHED. */
int kv_do_item_dead(const kv_item *it, int64_t now) KV_CACHE_FN;

#endif

/* cache.h — the in-memory page cache (Apache mod_mem_cache's shape): a hash table keyed by the
 * canonical URL plus a binary min-heap of replacement priorities (LRU or GDSF), limits on the
 * entry count, total body bytes and object size, reference-counted entries and expiry.
 *
 * Life of an entry: wc_entry_new() builds it outside any critical section (the body is copied
 * there) holding one reference, the caller's. wc_cache_insert() gives the cache its own
 * reference. wc_cache_lookup() returns an entry with a reference taken for the caller. Every
 * reference is dropped with wc_cache_release() (or wc_entry_unref() for an entry that never
 * went into a cache); the last one frees the entry, always outside the critical section.
 * Entries are immutable after wc_entry_new() except the fields marked "cache".
 */
#ifndef WC_CACHE_H
#define WC_CACHE_H

#include <stddef.h>
#include <stdint.h>

enum wc_policy { WC_POLICY_LRU, WC_POLICY_GDSF };

struct wc_entry {
    /* immutable after wc_entry_new() */
    uint64_t hash;            /* wc_hash(key) */
    const char *key;          /* canonical URL, NUL-terminated, stored inline */
    size_t key_len;
    const char *content_type; /* stored inline */
    const char *body;         /* stored inline */
    size_t body_len;
    uint64_t expires_ms;      /* clock value after which the entry is stale; 0 = never */
    double cost;              /* cost of producing the page (GDSF), > 0 */
    uint32_t magic;           /* WC_ENTRY_MAGIC while alive (checked by tests) */
    /* cache: guarded by the cache's critical section */
    long refs;                /* holders: the cache while linked, plus each request */
    size_t heap_index;        /* position in the heap; SIZE_MAX when not in the cache */
    double priority;          /* heap key: LRU tick or GDSF H value */
    uint64_t tick;            /* last access (tie-break, oldest first) */
    uint64_t freq;            /* accesses while cached (GDSF) */
    struct wc_entry *hnext;   /* hash chain */
    struct wc_entry *defer_next; /* deferred-free list (lock build) */
};

#define WC_ENTRY_MAGIC 0x77636531u

struct wc_cache_opts {
    enum wc_policy policy;
    size_t max_entries;        /* >= 1 */
    size_t max_bytes;          /* total body bytes, >= max_object_size */
    size_t max_object_size;    /* larger bodies are not cached */
    uint64_t (*clock_ms)(void *arg); /* NULL: CLOCK_MONOTONIC in milliseconds */
    void *clock_arg;
};

struct wc_cache_stats {
    uint64_t hits, misses;     /* lookups that found a fresh entry / found none */
    uint64_t inserts;          /* entries added */
    uint64_t evictions;        /* entries removed to respect a limit */
    uint64_t expired;          /* stale entries removed when found by a lookup or insert */
    uint64_t rejected;         /* inserts refused: too big, or the key was already cached */
    uint64_t entries, bytes;   /* current contents */
};

enum wc_insert_result { WC_INSERTED, WC_EXISTS, WC_TOO_BIG };

struct wc_cache;

uint64_t wc_hash(const char *key, size_t len);
const char *wc_policy_name(enum wc_policy p);
const char *wc_cache_sync_name(void); /* "lock" or "tm" */

/* NULL on allocation failure. max_age_ms 0 means "never expires" relative to now_ms. */
struct wc_entry *wc_entry_new(const char *key, size_t key_len, const char *content_type,
                              const void *body, size_t body_len, uint64_t expires_ms,
                              double cost);
void wc_entry_unref(struct wc_entry *e); /* for entries never inserted */
long wc_entry_live(void);                /* entries allocated and not yet freed (tests) */

struct wc_cache *wc_cache_new(const struct wc_cache_opts *opts);
void wc_cache_free(struct wc_cache *c); /* no reference may be held by anyone else */
uint64_t wc_cache_now(const struct wc_cache *c);

struct wc_entry *wc_cache_lookup(struct wc_cache *c, const char *key, size_t key_len);
enum wc_insert_result wc_cache_insert(struct wc_cache *c, struct wc_entry *e);
void wc_cache_release(struct wc_cache *c, struct wc_entry *e);
void wc_cache_get_stats(struct wc_cache *c, struct wc_cache_stats *out);

/* The key with the lowest priority (next victim), copied into buf; 0 if empty. Tests only. */
int wc_cache_victim(struct wc_cache *c, char *buf, size_t size);
/* Checks every invariant (heap order, table/heap agreement, counts, bytes, limits); returns
 * NULL or a description of the first violation. Call only while no other thread uses c. */
const char *wc_cache_check(struct wc_cache *c);

#endif

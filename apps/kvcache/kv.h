/* kv.h — kvcache's shared types and the interfaces between its modules.
 *
 *   kv_main.c    options (memcached's: -p -t -m -c -I -l -f -v -b -B -C -D -F -M -R -X -o),
 *                start-up, signals
 *   kv_server.c  the listening socket, the listener thread, the server's start
 *   kv_conn.c    the epoll worker threads, connection buffers (kv_conn.h)
 *   kv_text.c, kv_text_store.c, kv_text_admin.c   the text protocol (kv_text.h)
 *   kv_binary.c, kv_binary_cmds.c    the binary protocol (kv_binary.h)
 *   kv_cache.c   the operations (get, store, delete, delta, touch, flush): the cache sections
 *   kv_items.c   items: allocation with eviction, link/unlink, LRU lists (callers hold cache)
 *   kv_items_stats.c   their per-class statistics and `stats cachedump` (kv_items.h)
 *   kv_assoc.c   the hash table and its maintainer thread (background expansion)
 *   kv_slabs.c   the slab allocator: size classes, free lists, the -m limit (slabs_lock)
 *   kv_stats.c   global statistics (stats_lock), per-worker statistics, the stats replies,
 *                per-prefix statistics (`stats detail`)
 * Synchronization (which lock guards what, lock order, the builds): kv_sync.h.
 * Functions named kv_do_* must be called inside a cache section.
 */
#ifndef KV_H
#define KV_H

#include <stddef.h>
#include <stdint.h>

#include "kv_sync.h"

#define KV_KEY_MAX 250
#define KV_VERSION "1.4.0-kvcache"

enum kv_binding { KV_BIND_AUTO, KV_BIND_ASCII, KV_BIND_BINARY };

/* Set once at start-up (kv_main.c), read-only afterwards (also inside transactions). */
struct kv_settings {
    int port;
    int threads;
    size_t maxbytes;  /* -m */
    int maxconns;     /* -c */
    size_t item_max;  /* -I: the largest item and the slab page size */
    const char *addr; /* -l */
    int verbose;      /* -v; changed at run time by `verbosity`: use kv_verbose()/kv_set_verbose() */
    int hashpower;    /* -o hashpower=N: the initial table has 2^N buckets */
    double factor;    /* size classes grow by this factor */
    int backlog;      /* -b: listen backlog */
    int binding;      /* -B: enum kv_binding */
    int use_cas;      /* 0 with -C: items carry no CAS id (gets shows 0, cas never matches) */
    int flush_enabled; /* 0 with -F: flush_all refused */
    int evict;        /* 0 with -M: a full class answers out of memory instead of evicting */
    int dump_enabled; /* 0 with -X: stats cachedump refused */
    int reqs_per_event; /* -R: commands a connection runs before the others get a turn */
    char prefix_delim; /* -D: the key prefix separator of `stats detail` */
};
extern struct kv_settings kv_settings;

/* An item: the header, then the key (nkey bytes), then the value (nbytes bytes).
 * Guarded by cache_lock: every field but the key and value bytes, which are written before the
 * item is linked and never changed while it is reachable (a changed value is a new item).
 * refcount counts the holders: the table while the item is linked, plus each connection copying
 * the value and each store in progress; updated atomically (kv_sync.h, KV_REF_*), so the last
 * release frees the item without a cache section. An item whose count drops to 0 is unlinked
 * (the table's reference is gone) and goes back to its slab class. */
typedef struct kv_item {
    struct kv_item *hnext; /* hash chain; also the slab free list */
    struct kv_item *prev, *next; /* LRU list of its slab class */
    int64_t exptime; /* absolute unix seconds, 0: never */
    int64_t atime;   /* last access (LRU bumps) */
    int64_t stime;   /* when it was stored (delayed flush_all) */
    uint64_t cas;
    uint32_t flags;
    uint32_t nbytes; /* value length */
    int32_t refcount;
    uint8_t nkey;
    uint8_t clsid;   /* slab class */
    uint8_t linked;  /* in the hash table and its LRU list */
    uint8_t fetched; /* found by a lookup since it was stored (the *_unfetched statistics) */
    char data[];
} kv_item;

#define KV_ITEM_KEY(it) ((it)->data)
#define KV_ITEM_VALUE(it) ((it)->data + (it)->nkey)
#define KV_ITEM_TOTAL(nkey, nbytes) (sizeof(kv_item) + (nkey) + (nbytes))

/* ---- slabs (kv_slabs.c) ---- */
void kv_slabs_init(void);
int kv_slabs_clsid(size_t total) KV_TM_SAFE;        /* 0: too large */
kv_item *kv_slabs_alloc(int clsid) KV_CACHE_FN;     /* NULL: class at the memory limit */
size_t kv_slabs_chunk_size(int clsid) KV_CACHE_FN;
int kv_slabs_nclasses(void);
int kv_slabs_stats(char *out, size_t cap);          /* "STAT n:chunk_size ..." lines */
long kv_slabs_malloc_fails(void);

/* ---- hash table (kv_assoc.c) ---- */
void kv_assoc_init(int hashpower);
void kv_assoc_start_maintainer(void);
uint32_t kv_hash(const char *key, size_t nkey) KV_CACHE_FN;
kv_item *kv_do_assoc_find(const char *key, size_t nkey, uint32_t hv) KV_CACHE_FN;
void kv_do_assoc_insert(kv_item *it, uint32_t hv) KV_CACHE_FN;
void kv_do_assoc_delete(const char *key, size_t nkey, uint32_t hv) KV_CACHE_FN;
void kv_assoc_info(long *hashpower, long *hash_bytes, long *expanding);

/* ---- items (kv_items.c), inside cache sections ---- */
kv_item *kv_do_item_alloc(const char *key, size_t nkey, uint32_t flags, int64_t exptime,
                          size_t nbytes, int64_t now) KV_CACHE_FN;
void kv_do_item_link(kv_item *it, uint32_t hv, int64_t now) KV_CACHE_FN;
void kv_do_item_unlink(kv_item *it, uint32_t hv) KV_CACHE_FN;
void kv_do_item_release(kv_item *it) KV_CACHE_FN;
void kv_do_item_bump(kv_item *it, int64_t now) KV_CACHE_FN;
int kv_do_item_alive(const kv_item *it, int64_t now) KV_CACHE_FN;
/* A live item with a reference for the caller, or NULL; *dead (if not NULL) says why a key that
 * was found is not returned: KV_DEAD_EXPIRED or KV_DEAD_FLUSHED (0: not there at all). */
enum { KV_DEAD_EXPIRED = 1, KV_DEAD_FLUSHED = 2 };
kv_item *kv_do_item_get(const char *key, size_t nkey, uint32_t hv, int64_t now,
                        int *dead) KV_CACHE_FN;
void kv_do_items_flush(int64_t when, int64_t now) KV_CACHE_FN;
void kv_items_stats(char *out, size_t cap, int *len);
/* The sums over the classes of the per-class counters that `stats` reports as totals. */
void kv_items_totals(long *expired_unfetched, long *evicted_unfetched, long *reflocked);
void kv_items_stats_reset(void);
/* `stats cachedump CLASS LIMIT`: "ITEM key [bytes b; exptime s]" lines, newest first, at most
 * `limit` (0: all) and at most `cap` bytes; returns the length. */
int kv_items_cachedump(int clsid, int limit, char *out, size_t cap);

/* ---- operations (kv_cache.c): each is one or two cache sections ---- */
enum kv_result {
    KV_STORED, KV_NOT_STORED, KV_EXISTS, KV_NOT_FOUND, KV_DELETED, KV_TOUCHED,
    KV_NON_NUMERIC, KV_NO_MEMORY, KV_TOO_LARGE, KV_OK
};
enum kv_store_op { KV_SET, KV_ADD, KV_REPLACE, KV_APPEND, KV_PREPEND, KV_CAS };
int64_t kv_now(void);
int64_t kv_abs_exptime(int64_t exptime, int64_t now);
/* flush_all's argument as the unix time it takes effect (0: now). */
int64_t kv_flush_when(int64_t arg, int64_t now);
/* An item to fill with the value, refcount 1 (release it); NULL and *why = KV_TOO_LARGE or
 * KV_NO_MEMORY. */
kv_item *kv_alloc(const char *key, size_t nkey, uint32_t flags, int64_t exptime, size_t nbytes,
                  int *why);
int kv_store(kv_item *it, enum kv_store_op op, uint64_t *cas);
kv_item *kv_get(const char *key, size_t nkey, int touch, int64_t exptime, int *dead);
void kv_release(kv_item *it);
int kv_delete(const char *key, size_t nkey);
int kv_delta(const char *key, size_t nkey, int incr, uint64_t delta, uint64_t *value,
             uint64_t *cas);
int kv_delta_create(const char *key, size_t nkey, uint64_t initial, int64_t exptime,
                    uint64_t *cas);
int kv_touch(const char *key, size_t nkey, int64_t exptime);
void kv_flush(int64_t arg); /* flush_all's argument: 0 now, seconds, or a unix time */

/* ---- statistics (kv_stats.c) ---- */
/* The global counters (stats_lock): name, meaning. */
#define KV_GSTATS(X)                                                                              \
    X(curr_items, "items stored now")                                                             \
    X(total_items, "items ever stored")                                                           \
    X(bytes, "bytes of items stored now (headers, keys, values)")                                 \
    X(evictions, "live items evicted to make room")                                               \
    X(reclaimed, "expired or flushed items whose memory was reused")                              \
    X(curr_connections, "open client connections")                                                \
    X(total_connections, "connections ever accepted")                                             \
    X(rejected_connections, "connections refused at -c")
struct kv_gstats_s {
#define KV_X(name, doc) kv_counter_t name;
    KV_GSTATS(KV_X)
#undef KV_X
};
extern struct kv_gstats_s kv_gstats;

/* Per-worker counters (each under its worker's own mutex). */
#define KV_TSTATS(X)                                                                              \
    X(cmd_get) X(cmd_set) X(cmd_flush) X(cmd_touch) X(get_hits) X(get_misses) X(get_expired)      \
    X(get_flushed) X(delete_misses) X(delete_hits) X(incr_misses) X(incr_hits) X(decr_misses)     \
    X(decr_hits) X(cas_misses) X(cas_hits) X(cas_badval) X(touch_hits) X(touch_misses)            \
    X(store_too_large) X(store_no_memory) X(bytes_read) X(bytes_written) X(conn_yields)
struct kv_tstats {
    pthread_mutex_t lock;
#define KV_X(name) uint64_t name;
    KV_TSTATS(KV_X)
#undef KV_X
};
enum kv_tstat_id {
#define KV_X(name) KV_TS_##name,
    KV_TSTATS(KV_X)
#undef KV_X
    KV_TS_COUNT
};
struct kv_tstats *kv_tstats_new(void);
void kv_tstat_add(struct kv_tstats *t, enum kv_tstat_id id, uint64_t n);
void kv_stats_reset(void);
/* Writes "STAT name value\r\n" lines (no END) for `stats` (what = ""), "items", "slabs",
 * "settings"; returns the length, or -1 for an unknown group. */
int kv_stats_report(const char *what, char *out, size_t cap);

/* `stats detail`: per-prefix counts of gets, hits, sets and deletes (the prefix is the key up to
 * the first -D separator; keys without one are not counted), kept while detail is on. Called by
 * the protocols outside any cache section; the table has a mutex of its own. */
enum kv_detail_op { KV_DETAIL_GET, KV_DETAIL_SET, KV_DETAIL_DEL };
extern int kv_detail_on; /* relaxed atomic: read on every command */
void kv_detail_record(const char *key, size_t nkey, enum kv_detail_op op, int hit);
void kv_detail_enable(int on);
int kv_detail_dump(char *out, size_t cap); /* "PREFIX p get g hit h set s del d" lines + END */
void kv_detail_reset(void);
#define KV_DETAIL(key, nkey, op, hit)                                                             \
    do {                                                                                          \
        if (__atomic_load_n(&kv_detail_on, __ATOMIC_RELAXED))                                     \
            kv_detail_record((key), (nkey), (op), (hit));                                         \
    } while (0)

/* ---- server (kv_conn.c) ---- */
int kv_server_run(void);
extern int64_t kv_started;
/* The verbosity any thread may change (text and binary `verbosity`) while others log: relaxed
 * atomics, a level on its own that orders nothing (ThreadSanitizer found the plain int racing). */
static inline int kv_verbose(void) { return __atomic_load_n(&kv_settings.verbose, __ATOMIC_RELAXED); }
static inline void kv_set_verbose(int v) { __atomic_store_n(&kv_settings.verbose, v, __ATOMIC_RELAXED); }
#define KV_LOG(level, ...)                                                                        \
    do {                                                                                          \
        if (kv_verbose() >= (level))                                                              \
            fprintf(stderr, __VA_ARGS__);                                                         \
    } while (0)

#endif

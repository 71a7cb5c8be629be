/* stats.h — the server's counters and the /_stats JSON document (stats.c). */
#ifndef WC_STATS_H
#define WC_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "config.h"

/* Every counter of /_stats, in output order, with its meaning. */
#define WC_STATS_FIELDS(X)                                                                   \
    X(requests, "HTTP responses sent, every path and status (the /_stats request included)") \
    X(hits, "page requests answered from the cache")                                         \
    X(misses, "page requests the cache could not answer (all of them in the nocache build)") \
    X(entries, "pages in the cache now")                                                     \
    X(bytes, "body bytes in the cache now")                                                  \
    X(evictions, "pages removed to respect --max-entries or --max-bytes")                    \
    X(expired, "stale pages removed when met by a lookup or insert")                         \
    X(inserts, "pages added to the cache")                                                   \
    X(rejected, "pages not added: larger than --max-object-size, or cached meanwhile")       \
    X(renders, "pages rendered by man2html")

struct wc_stats_slot {
    uint64_t pid;
#define WC_X(name, doc) uint64_t name;
    WC_STATS_FIELDS(WC_X)
#undef WC_X
};

int wc_stats_init(int procs);          /* before fork; 0 or -1 (no shared memory) */
void wc_stats_attach(int index);       /* in each server process */
void wc_stats_add(size_t field_offset); /* atomic +1 on this process's slot */
#define WC_STATS_INC(name) wc_stats_add(offsetof(struct wc_stats_slot, name))
void wc_stats_publish(struct wc_cache *c); /* copy the cache's counters into this slot */
/* A buffer size that always holds the JSON document (it grows with --procs). */
size_t wc_stats_json_cap(void);
/* Writes the JSON document; returns its length (< cap) or 0 if cap is too small. */
size_t wc_stats_json(char *buf, size_t cap, struct wc_cache *c, const struct wc_config *cfg);

#endif

/* cache_entry.c — building and freeing cache entries, outside any critical section.
 *
 * An entry is one allocation: the struct, then the key, the content type and the body, copied
 * in by wc_entry_new (the expensive copy happens here, never under the cache's lock or inside a
 * transaction). wc_entry_free checks the magic number, so a double free aborts loudly instead of
 * corrupting the heap, and keeps a count of live entries that the tests compare with zero.
 */
#include "cache.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long wc__live; /* atomic: entries allocated and not yet freed */

uint64_t wc_hash(const char *key, size_t len)
{
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)key[i];
        h *= 0x100000001b3u;
    }
    return h;
}

const char *wc_policy_name(enum wc_policy p) { return p == WC_POLICY_LRU ? "lru" : "gdsf"; }

struct wc_entry *wc_entry_new(const char *key, size_t key_len, const char *content_type,
                              const void *body, size_t body_len, uint64_t expires_ms,
                              double cost)
{
    size_t ct_len = strlen(content_type);
    struct wc_entry *e = malloc(sizeof *e + key_len + 1 + ct_len + 1 + body_len);
    if (!e)
        return NULL;
    char *p = (char *)(e + 1);
    memcpy(p, key, key_len);
    p[key_len] = '\0';
    e->key = p;
    p += key_len + 1;
    memcpy(p, content_type, ct_len + 1);
    e->content_type = p;
    p += ct_len + 1;
    if (body_len)
        memcpy(p, body, body_len);
    e->body = p;
    e->hash = wc_hash(key, key_len);
    e->key_len = key_len;
    e->body_len = body_len;
    e->expires_ms = expires_ms;
    e->cost = cost > 0 ? cost : 1.0;
    e->magic = WC_ENTRY_MAGIC;
    e->refs = 1; /* the caller's */
    e->heap_index = SIZE_MAX;
    e->priority = 0;
    e->tick = 0;
    e->freq = 0;
    e->hnext = NULL;
    e->defer_next = NULL;
    __atomic_fetch_add(&wc__live, 1, __ATOMIC_RELAXED);
    return e;
}

void wc_entry_free(struct wc_entry *e)
{
    if (e->magic != WC_ENTRY_MAGIC || e->refs != 0 || e->heap_index != SIZE_MAX) {
        fprintf(stderr, "webcache: freeing a bad cache entry (double free or still in use)\n");
        abort();
    }
    e->magic = 0xdeadbeefu;
    __atomic_fetch_sub(&wc__live, 1, __ATOMIC_RELAXED);
    free(e);
}

void wc_entry_unref(struct wc_entry *e)
{
    if (__atomic_sub_fetch(&e->refs, 1, __ATOMIC_ACQ_REL) == 0)
        wc_entry_free(e);
}

long wc_entry_live(void) { return __atomic_load_n(&wc__live, __ATOMIC_RELAXED); }

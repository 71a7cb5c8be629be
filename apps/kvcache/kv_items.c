/* kv_items.c — items: allocation (with eviction), link/unlink, reference counts, LRU lists.
 *
 * Every function here runs inside a cache section (kv_do_*) except kv_items_stats, which opens
 * its own. An item is either free (in its slab class), private (allocated, refcount >= 1, not
 * linked: a store in progress), or linked (in the hash table and at some place in its class's
 * LRU list, newest at the head; the table holds one reference). A linked item may also be
 * referenced by connections copying its value out. Whoever drops the count to 0 frees the item:
 * the unlink if nobody else holds it, else the last release (kv_release, outside any section).
 *
 * Allocation takes a chunk from the slab class; when the class is at the memory limit it looks
 * at up to KV_EVICT_TRIES items from the LRU tail and reuses the first unreferenced one (counted
 * as reclaimed if it had expired, evicted otherwise). A hit moves an item to the head of its LRU
 * list only if it was last moved KV_BUMP_SECONDS ago or more (as memcached 1.4 does: fewer writes
 * on the read path).
 *
 * Liveness: an item is dead once its exptime has passed, if it was stored before the last
 * immediate flush_all (its CAS id is older than kv_flush_cas), or before a delayed flush_all
 * whose time has come (kv_flush_time). Dead items are unlinked lazily, when found.
 */
#include <stdio.h>
#include <string.h>

#include "kv.h"

#define KV_EVICT_TRIES 5
#define KV_BUMP_SECONDS 60
#define KV_NCLS 65

/* guarded by cache_lock */
static kv_item *kv_heads[KV_NCLS], *kv_tails[KV_NCLS];
static long kv_sizes[KV_NCLS], kv_evicted[KV_NCLS], kv_reclaimed[KV_NCLS], kv_oom[KV_NCLS];
static uint64_t kv_cas_next = 1;
uint64_t kv_flush_cas;
int64_t kv_flush_time;

int KV_CACHE_FN kv_do_item_alive(const kv_item *it, int64_t now)
{
    if (it->exptime && it->exptime <= now)
        return 0;
    if (it->cas < kv_flush_cas)
        return 0;
    if (kv_flush_time && kv_flush_time <= now && it->stime < kv_flush_time)
        return 0;
    return 1;
}

static void KV_CACHE_FN kv_lru_insert(kv_item *it)
{
    int c = it->clsid;
    it->prev = NULL;
    it->next = kv_heads[c];
    if (it->next)
        it->next->prev = it;
    kv_heads[c] = it;
    if (!kv_tails[c])
        kv_tails[c] = it;
    kv_sizes[c]++;
}

static void KV_CACHE_FN kv_lru_remove(kv_item *it)
{
    int c = it->clsid;
    if (kv_heads[c] == it)
        kv_heads[c] = it->next;
    if (kv_tails[c] == it)
        kv_tails[c] = it->prev;
    if (it->next)
        it->next->prev = it->prev;
    if (it->prev)
        it->prev->next = it->next;
    it->prev = it->next = NULL;
    kv_sizes[c]--;
}

/* Takes an unreferenced item from the LRU tail of class c for reuse; NULL if none. */
static kv_item *KV_CACHE_FN kv_do_evict(int c, int64_t now)
{
    kv_item *it = kv_tails[c];
    for (int tries = 0; it && tries < KV_EVICT_TRIES; tries++, it = it->prev) {
        if (KV_REF_GET(it) != 1) /* held by someone besides the table */
            continue;
        if (kv_do_item_alive(it, now)) {
            kv_evicted[c]++;
            KV_STAT_ADD(evictions, 1);
        } else {
            kv_reclaimed[c]++;
            KV_STAT_ADD(reclaimed, 1);
        }
        KV_REF_INC(it); /* ours: kv_do_item_unlink drops only the table's */
        kv_do_item_unlink(it, kv_hash(KV_ITEM_KEY(it), it->nkey));
        return it;
    }
    kv_oom[c]++;
    return NULL;
}

kv_item *KV_CACHE_FN kv_do_item_alloc(const char *key, size_t nkey, uint32_t flags, int64_t exptime,
                          size_t nbytes, int64_t now)
{
    int c = kv_slabs_clsid(KV_ITEM_TOTAL(nkey, nbytes));
    if (c == 0)
        return NULL;
    kv_item *it = kv_slabs_alloc(c);
    if (!it)
        it = kv_do_evict(c, now);
    if (!it)
        return NULL;
    it->hnext = it->prev = it->next = NULL;
    it->exptime = exptime;
    it->atime = it->stime = now;
    it->cas = 0;
    it->flags = flags;
    it->nbytes = (uint32_t)nbytes;
    it->refcount = 1;
    it->nkey = (uint8_t)nkey;
    it->clsid = (uint8_t)c;
    it->linked = 0;
    it->slabbed = 0;
    memcpy(it->data, key, nkey);
    return it;
}

void KV_CACHE_FN kv_do_item_link(kv_item *it, uint32_t hv, int64_t now)
{
    KV_REF_INC(it); /* the table's reference */
    it->linked = 1;
    it->atime = it->stime = now;
    it->cas = kv_cas_next++;
    kv_do_assoc_insert(it, hv);
    kv_lru_insert(it);
    KV_STAT_ADD(curr_items, 1);
    KV_STAT_ADD(total_items, 1);
    KV_STAT_ADD(bytes, (long)KV_ITEM_TOTAL(it->nkey, it->nbytes));
}

void KV_CACHE_FN kv_do_item_unlink(kv_item *it, uint32_t hv)
{
    if (!it->linked)
        return;
    it->linked = 0;
    kv_do_assoc_delete(KV_ITEM_KEY(it), it->nkey, hv);
    kv_lru_remove(it);
    KV_STAT_ADD(curr_items, -1);
    KV_STAT_ADD(bytes, -(long)KV_ITEM_TOTAL(it->nkey, it->nbytes));
    if (KV_REF_DEC_IS_LAST(it)) /* the table's reference */
        KV_DEFER_FREE(it);
}

void KV_CACHE_FN kv_do_item_release(kv_item *it)
{
    if (KV_REF_DEC_IS_LAST(it))
        KV_DEFER_FREE(it);
}

void KV_CACHE_FN kv_do_item_bump(kv_item *it, int64_t now)
{
    if (it->linked && it->atime + KV_BUMP_SECONDS <= now) {
        kv_lru_remove(it);
        it->atime = now;
        kv_lru_insert(it);
    }
}

kv_item *KV_CACHE_FN kv_do_item_get(const char *key, size_t nkey, uint32_t hv, int64_t now)
{
    kv_item *it = kv_do_assoc_find(key, nkey, hv);
    if (it && !kv_do_item_alive(it, now)) {
        kv_do_item_unlink(it, hv);
        it = NULL;
    }
    if (it) {
        KV_REF_INC(it);
        kv_do_item_bump(it, now);
    }
    return it;
}

void KV_CACHE_FN kv_do_items_flush(int64_t delay, int64_t now)
{
    if (delay > 0) {
        /* a delay past the end of time never comes (the sum would overflow: found by fuzzing) */
        kv_flush_time = delay > INT64_MAX - now ? INT64_MAX : now + delay;
    } else {
        kv_flush_cas = kv_cas_next;
        kv_flush_time = 0;
    }
}

void kv_items_stats(char *out, size_t cap, int *lenp)
{
    long sizes[KV_NCLS], ev[KV_NCLS], rec[KV_NCLS], oom[KV_NCLS], age[KV_NCLS];
    int64_t now = kv_now();
    KV_CACHE_BEGIN();
    for (int c = 0; c < KV_NCLS; c++) {
        sizes[c] = kv_sizes[c];
        ev[c] = kv_evicted[c];
        rec[c] = kv_reclaimed[c];
        oom[c] = kv_oom[c];
        age[c] = kv_tails[c] ? (long)(now - kv_tails[c]->atime) : 0;
    }
    KV_CACHE_END();
    int len = *lenp;
    for (int c = 1; c < KV_NCLS && len < (int)cap; c++) {
        if (sizes[c] == 0 && ev[c] == 0)
            continue;
        len += snprintf(out + len, cap - (size_t)len,
                        "STAT items:%d:number %ld\r\nSTAT items:%d:age %ld\r\n"
                        "STAT items:%d:evicted %ld\r\nSTAT items:%d:reclaimed %ld\r\n"
                        "STAT items:%d:outofmemory %ld\r\n",
                        c, sizes[c], c, age[c], c, ev[c], c, rec[c], c, oom[c]);
    }
    *lenp = len < (int)cap ? len : (int)cap - 1;
}

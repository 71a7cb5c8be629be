/* kv_items.c — items: allocation (with reclaiming and eviction), link/unlink, reference counts,
 * LRU lists. Their statistics, `stats reset` of them and `stats cachedump`: kv_items_stats.c.
 *
 * Every function here runs inside a cache section (kv_do_*). An item is either free (in its slab class), private (allocated, refcount >= 1,
 * not linked: a store in progress), or linked (in the hash table and at some place in its
 * class's LRU list, newest at the head; the table holds one reference). A linked item may also be
 * referenced by connections copying its value out. Whoever drops the count to 0 frees the item:
 * the unlink if nobody else holds it, else the last release (kv_release, outside any section).
 *
 * Allocation, as memcached 1.4 does it: look at the class's LRU tail, skipping items someone
 * holds (at most KV_TAIL_TRIES; each skip counts as lrutail_reflocked). If the first free-to-take
 * tail item is dead (expired or flushed), its chunk is reused at once ("reclaimed"), so expired
 * items give their memory back before the class grows. Otherwise a chunk comes from the slab
 * class; when the class is at the memory limit, that tail item is evicted and its chunk reused
 * (with -M the allocation fails instead: "outofmemory"). A hit moves an item to the head of its
 * LRU list only if it was last moved KV_BUMP_SECONDS ago or more (fewer writes on the read path).
 *
 * Liveness: an item is dead once its exptime has passed, if it was stored before the last
 * immediate flush_all (its CAS id is older than kv_flush_cas), or, once kv_flush_at has come, if
 * it was stored before kv_flush_before: a flush_all with a delay or a unix time (both times are
 * that time), or an immediate one under -C (no CAS ids: everything stored up to the end of the
 * current second, as memcached without CAS). Dead items are unlinked lazily, when found.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_items.h"

#define KV_TAIL_TRIES 5
#define KV_BUMP_SECONDS 60

/* guarded by cache_lock (kv_items.h) */
kv_item *kv_heads[KV_NCLS], *kv_tails[KV_NCLS];
long kv_sizes[KV_NCLS], kv_bytes[KV_NCLS];
struct kv_cls_stats kv_cstats[KV_NCLS];
static uint64_t kv_cas_next = 1;
uint64_t kv_flush_cas;
int64_t kv_flush_at, kv_flush_before;

/* 0 if `it` is alive, else KV_DEAD_EXPIRED or KV_DEAD_FLUSHED. */
int KV_CACHE_FN kv_do_item_dead(const kv_item *it, int64_t now)
{
    if (it->exptime && it->exptime <= now)
        return KV_DEAD_EXPIRED;
    if (it->cas < kv_flush_cas)
        return KV_DEAD_FLUSHED;
    if (kv_flush_at && kv_flush_at <= now && it->stime < kv_flush_before)
        return KV_DEAD_FLUSHED;
    return 0;
}

int KV_CACHE_FN kv_do_item_alive(const kv_item *it, int64_t now)
{
    return !kv_do_item_dead(it, now);
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
    kv_bytes[c] += (long)KV_ITEM_TOTAL(it->nkey, it->nbytes);
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
    kv_bytes[c] -= (long)KV_ITEM_TOTAL(it->nkey, it->nbytes);
}

/* Takes `it` (linked, at the tail, held by the table only) out of the table for its chunk. */
static kv_item *KV_CACHE_FN kv_do_take(kv_item *it)
{
    KV_REF_INC(it); /* ours: kv_do_item_unlink drops only the table's */
    kv_do_item_unlink(it, kv_hash(KV_ITEM_KEY(it), it->nkey));
    return it;
}

/* A chunk of class c for a new item: a dead item's from the LRU tail, a free one, or a live
 * tail item's (evicted); NULL if none (memory full and the tail busy, or -M). */
static kv_item *KV_CACHE_FN kv_do_chunk(int c, int64_t now)
{
    struct kv_cls_stats *st = &kv_cstats[c];
    kv_item *search = kv_tails[c];
    int tries = 0;
    while (search && tries < KV_TAIL_TRIES && KV_REF_GET(search) != 1) {
        st->reflocked++; /* held by someone besides the table */
        search = search->prev;
        tries++;
    }
    kv_item *cand = tries < KV_TAIL_TRIES ? search : NULL; /* the first one nobody holds */
    if (cand && kv_do_item_dead(cand, now)) {
        st->reclaimed++;
        if (!cand->fetched)
            st->expired_unfetched++;
        KV_STAT_ADD(reclaimed, 1);
        return kv_do_take(cand);
    }
    kv_item *it = kv_slabs_alloc(c);
    if (it)
        return it;
    if (cand && kv_settings.evict) {
        st->evicted++;
        st->evicted_time = (long)(now - cand->atime);
        if (cand->exptime)
            st->evicted_nonzero++;
        if (!cand->fetched)
            st->evicted_unfetched++;
        KV_STAT_ADD(evictions, 1);
        return kv_do_take(cand);
    }
    st->outofmemory++;
    return NULL;
}

kv_item *KV_CACHE_FN kv_do_item_alloc(const char *key, size_t nkey, uint32_t flags, int64_t exptime,
                          size_t nbytes, int64_t now)
{
    int c = kv_slabs_clsid(KV_ITEM_TOTAL(nkey, nbytes));
    if (c == 0)
        return NULL;
    kv_item *it = kv_do_chunk(c, now);
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
    it->fetched = 0;
    memcpy(it->data, key, nkey);
    return it;
}

void KV_CACHE_FN kv_do_item_link(kv_item *it, uint32_t hv, int64_t now)
{
    KV_REF_INC(it); /* the table's reference */
    it->linked = 1;
    it->atime = it->stime = now;
    it->cas = kv_settings.use_cas ? kv_cas_next++ : 0;
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

kv_item *KV_CACHE_FN kv_do_item_get(const char *key, size_t nkey, uint32_t hv, int64_t now,
                                    int *dead)
{
    kv_item *it = kv_do_assoc_find(key, nkey, hv);
    int why = it ? kv_do_item_dead(it, now) : 0;
    if (dead)
        *dead = why;
    if (why) {
        kv_do_item_unlink(it, hv);
        it = NULL;
    }
    if (it) {
        KV_REF_INC(it);
        if (!it->fetched)
            it->fetched = 1;
        kv_do_item_bump(it, now);
    }
    return it;
}

void KV_CACHE_FN kv_do_items_flush(int64_t when, int64_t now)
{
    if (when > 0) { /* items stored before `when` die when it comes */
        kv_flush_at = kv_flush_before = when;
    } else if (kv_settings.use_cas) { /* exact: every CAS id given so far */
        kv_flush_cas = kv_cas_next;
        kv_flush_at = 0;
    } else { /* no CAS ids: by store time, the current second included */
        kv_flush_at = now;
        kv_flush_before = now + 1;
    }
}

/* kv_items_stats.c — the item module's statistics: the per-class lines of `stats items`, the
 * totals that `stats` reports, their reset (`stats reset`), and `stats cachedump CLASS LIMIT`.
 *
 * Each reader copies what it needs in one cache section and formats it outside, so that no
 * section calls snprintf (a TM build would have to run it irrevocably). cachedump copies the keys
 * of a class's live items, newest first, into a private buffer inside the section.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_items.h"

void kv_items_stats(char *out, size_t cap, int *lenp)
{
    long sizes[KV_NCLS], bytes[KV_NCLS], age[KV_NCLS];
    struct kv_cls_stats st[KV_NCLS];
    int64_t now = kv_now();
    KV_CACHE_BEGIN();
    for (int c = 0; c < KV_NCLS; c++) {
        sizes[c] = kv_sizes[c];
        bytes[c] = kv_bytes[c];
        st[c] = kv_cstats[c];
        age[c] = kv_tails[c] ? (long)(now - kv_tails[c]->atime) : 0;
    }
    KV_CACHE_END();
    int len = *lenp;
    for (int c = 1; c < KV_NCLS && len < (int)cap; c++) {
        struct kv_cls_stats *s = &st[c];
        if (sizes[c] == 0 && s->evicted == 0 && s->reclaimed == 0 && s->outofmemory == 0)
            continue;
        len += snprintf(out + len, cap - (size_t)len,
                        "STAT items:%d:number %ld\r\nSTAT items:%d:age %ld\r\n"
                        "STAT items:%d:mem_requested %ld\r\n"
                        "STAT items:%d:evicted %ld\r\nSTAT items:%d:evicted_nonzero %ld\r\n"
                        "STAT items:%d:evicted_time %ld\r\nSTAT items:%d:outofmemory %ld\r\n"
                        "STAT items:%d:reclaimed %ld\r\nSTAT items:%d:expired_unfetched %ld\r\n"
                        "STAT items:%d:evicted_unfetched %ld\r\n"
                        "STAT items:%d:lrutail_reflocked %ld\r\n",
                        c, sizes[c], c, age[c], c, bytes[c], c, s->evicted, c, s->evicted_nonzero,
                        c, s->evicted_time, c, s->outofmemory, c, s->reclaimed, c,
                        s->expired_unfetched, c, s->evicted_unfetched, c, s->reflocked);
    }
    *lenp = len < (int)cap ? len : (int)cap - 1;
}

void kv_items_totals(long *expired_unfetched, long *evicted_unfetched, long *reflocked)
{
    long e = 0, v = 0, r = 0;
    KV_CACHE_BEGIN();
    for (int c = 1; c < KV_NCLS; c++) {
        e += kv_cstats[c].expired_unfetched;
        v += kv_cstats[c].evicted_unfetched;
        r += kv_cstats[c].reflocked;
    }
    KV_CACHE_END();
    *expired_unfetched = e;
    *evicted_unfetched = v;
    *reflocked = r;
}

void kv_items_stats_reset(void)
{
    KV_CACHE_BEGIN();
    for (int c = 0; c < KV_NCLS; c++) {
        struct kv_cls_stats *s = &kv_cstats[c];
        s->evicted = s->evicted_nonzero = s->evicted_time = s->evicted_unfetched = 0;
        s->outofmemory = s->reclaimed = s->expired_unfetched = s->reflocked = 0;
    }
    KV_CACHE_END();
}

/* One record per item in `raw`: nkey (1 byte), the key, nbytes (4), exptime (8). */
static size_t KV_CACHE_FN kv_do_dump(int c, int limit, char *raw, size_t cap, int64_t now)
{
    size_t used = 0;
    int n = 0;
    for (kv_item *it = kv_heads[c]; it && (limit == 0 || n < limit); it = it->next) {
        if (kv_do_item_dead(it, now))
            continue;
        size_t need = 1 + (size_t)it->nkey + 4 + 8;
        if (used + need > cap)
            break;
        raw[used] = (char)it->nkey;
        memcpy(raw + used + 1, KV_ITEM_KEY(it), it->nkey);
        memcpy(raw + used + 1 + it->nkey, &it->nbytes, 4);
        memcpy(raw + used + 1 + it->nkey + 4, &it->exptime, 8);
        used += need;
        n++;
    }
    return used;
}

int kv_items_cachedump(int clsid, int limit, char *out, size_t cap)
{
    /* a formatted line is at most 46 bytes longer than its record, which is at least 14 */
    size_t rawcap = cap / 4, used;
    char *raw = malloc(rawcap);
    if (!raw)
        return 0;
    int64_t now = kv_now();
    KV_CACHE_BEGIN();
    used = kv_do_dump(clsid, limit, raw, rawcap, now);
    KV_CACHE_END();
    size_t len = 0;
    for (size_t p = 0; p < used;) { /* whole lines only */
        int nkey = (unsigned char)raw[p];
        uint32_t nbytes;
        int64_t exptime;
        char line[KV_KEY_MAX + 64];
        memcpy(&nbytes, raw + p + 1 + nkey, 4);
        memcpy(&exptime, raw + p + 1 + nkey + 4, 8);
        int n = snprintf(line, sizeof line, "ITEM %.*s [%u b; %lld s]\r\n", nkey, raw + p + 1,
                         nbytes, (long long)exptime);
        if (len + (size_t)n > cap)
            break;
        memcpy(out + len, line, (size_t)n);
        len += (size_t)n;
        p += 1 + (size_t)nkey + 12;
    }
    free(raw);
    return (int)len;
}

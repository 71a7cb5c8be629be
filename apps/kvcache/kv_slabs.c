/* kv_slabs.c — the slab allocator: size classes, per-class free lists, the -m memory limit.
 *
 * Classes 1..n have chunk sizes from 96 bytes growing by -f (1.25) and rounded up to 8 bytes;
 * the last class holds whole pages of item_max (-I) bytes. A class grows one page (item_max
 * bytes, cut into its chunks) at a time, while the pages malloc'ed stay under -m, except that
 * every class may take its first page even past the limit, so that any item that fits a class can
 * be stored once. When a class cannot grow, the caller (kv_items.c) evicts from its LRU tail.
 * Memory is never given back to the system.
 *
 * Synchronization: every field below is guarded by slabs_lock (kv_sync.h: KV_SLABS_IN_BEGIN for
 * allocation, which runs inside a cache section; KV_SLABS_BEGIN for frees and statistics).
 * The chunk size table is written once at start-up and read without the lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv.h"

#define KV_CLASS_MAX 64
#define KV_CHUNK_MIN 96

struct kv_class {
    size_t size;          /* chunk size (start-up constant) */
    size_t perpage;       /* chunks per page (start-up constant) */
    kv_item *free;        /* free chunks */
    long nfree;
    long pages;
    long used;            /* chunks handed out */
};

static struct kv_class kv_classes[KV_CLASS_MAX + 1];
static int kv_nclasses;
static size_t kv_mem_malloced;
static long kv_malloc_fails;
#if KV_SLABS_SWAPPED
__thread int kv_slabs_held;
#endif

void kv_slabs_init(void)
{
    size_t size = KV_CHUNK_MIN;
    int i = 1;
    while (i < KV_CLASS_MAX && size <= kv_settings.item_max / 2) {
        kv_classes[i].size = size;
        kv_classes[i].perpage = kv_settings.item_max / size;
        size = (size_t)(size * kv_settings.factor);
        size = (size + 7) & ~(size_t)7;
        i++;
    }
    kv_classes[i].size = kv_settings.item_max;
    kv_classes[i].perpage = 1;
    kv_nclasses = i;
}

/* The smallest class whose chunks hold `total` bytes; 0 if none does. */
int KV_TM_SAFE kv_slabs_clsid(size_t total)
{
    for (int i = 1; i <= kv_nclasses; i++)
        if (total <= kv_classes[i].size)
            return i;
    return 0;
}

size_t KV_CACHE_FN kv_slabs_chunk_size(int clsid) { return kv_classes[clsid].size; }

int kv_slabs_nclasses(void) { return kv_nclasses; }

long kv_slabs_malloc_fails(void)
{
    long n;
    KV_SLABS_BEGIN();
    n = kv_malloc_fails;
    KV_SLABS_END();
    return n;
}

/* Adds a page to class c; 0 at the memory limit (caller holds slabs_lock). */
static int KV_TM_SAFE kv_slabs_grow(struct kv_class *c)
{
    size_t len = c->size * c->perpage;
    if (c->pages > 0 && kv_mem_malloced + len > kv_settings.maxbytes)
        return 0;
    char *page = malloc(len);
    if (!page) {
        kv_malloc_fails++;
        return 0;
    }
    for (size_t i = 0; i < c->perpage; i++) {
        kv_item *it = (kv_item *)(page + i * c->size);
        it->hnext = c->free;
        c->free = it;
    }
    c->nfree += (long)c->perpage;
    c->pages++;
    kv_mem_malloced += len;
    return 1;
}

kv_item *KV_CACHE_FN kv_slabs_alloc(int clsid)
{
    kv_item *it = NULL;
    struct kv_class *c = &kv_classes[clsid];
    KV_SLABS_IN_BEGIN();
    if (c->free || kv_slabs_grow(c)) {
        it = c->free;
        c->free = it->hnext;
        c->nfree--;
        c->used++;
        it->clsid = (uint8_t)clsid;
    }
    KV_SLABS_IN_END();
    return it;
}

#if !KV_SLABS_SWAPPED
KV_CACHE_FN
#endif
void kv_slabs_free(kv_item *it)
{
    struct kv_class *c = &kv_classes[it->clsid];
    KV_SLABS_FREE_BEGIN();
    it->linked = 0;
    it->hnext = c->free;
    c->free = it;
    c->nfree++;
    c->used--;
    KV_SLABS_FREE_END();
}

int kv_slabs_stats(char *out, size_t cap)
{
    int len = 0, active = 0;
    long total_malloced;
    struct kv_class snap[KV_CLASS_MAX + 1];
    KV_SLABS_BEGIN();
    memcpy(snap, kv_classes, sizeof snap);
    total_malloced = (long)kv_mem_malloced;
    KV_SLABS_END();
    for (int i = 1; i <= kv_nclasses && len < (int)cap; i++) {
        struct kv_class *c = &snap[i];
        if (c->pages == 0)
            continue;
        active++;
        len += snprintf(out + len, cap - (size_t)len,
                        "STAT %d:chunk_size %zu\r\nSTAT %d:chunks_per_page %zu\r\n"
                        "STAT %d:total_pages %ld\r\nSTAT %d:total_chunks %ld\r\n"
                        "STAT %d:used_chunks %ld\r\nSTAT %d:free_chunks %ld\r\n"
                        "STAT %d:free_chunks_end 0\r\n",
                        i, c->size, i, c->perpage, i, c->pages, i, c->pages * (long)c->perpage,
                        i, c->used, i, c->nfree, i);
    }
    if (len < (int)cap)
        len += snprintf(out + len, cap - (size_t)len,
                        "STAT active_slabs %d\r\nSTAT total_malloced %ld\r\n", active,
                        total_malloced);
    return len < (int)cap ? len : (int)cap - 1;
}

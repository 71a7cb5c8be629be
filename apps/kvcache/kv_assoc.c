/* kv_assoc.c — the hash table (chained, 2^hashpower buckets) and its background expansion.
 *
 * When the table holds more than 1.5 items per bucket, the insert that crosses the line sets
 * expand_wanted and wakes the maintainer thread (KV_MAINT_SIGNAL, kv_sync.h). The maintainer
 * allocates a table twice as big outside any section, installs it as the primary table in one
 * cache section (the old one stays reachable), then moves the old buckets over, KV_BULK buckets
 * per cache section, so that workers run between the steps. While it expands, a key whose old
 * bucket has not been moved yet (old index >= expand_bucket) lives in the old table; every other
 * key in the new one. When the last bucket has moved, the old table is freed (after the section:
 * the TM runtime's privatization safety keeps doomed readers off it).
 *
 * Synchronization: every variable here is guarded by cache_lock (kv_do_* run inside cache
 * sections). The maintainer waits for expand_wanted on a condition variable: memcached's shape
 * (tied to cache_lock) in the lock build, tm_cond_t in the tmkit build, and a separate
 * maint_lock + pthread condition in the other TM builds, signalled inside the relaxed
 * transaction in cache-naive and by a commit handler in the atomic ones.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kv.h"

#define KV_BULK 64 /* old buckets moved per cache section */

static kv_item **kv_primary, **kv_old;
static unsigned kv_hashpower;
static unsigned kv_expand_bucket;
static int kv_expanding, kv_expand_wanted;
static long kv_hash_items;

pthread_cond_t kv_maint_cond = PTHREAD_COND_INITIALIZER;
pthread_mutex_t kv_maint_lock = PTHREAD_MUTEX_INITIALIZER;
int kv_maint_pending;
#if KV_TMKIT
tm_cond_t kv_maint_tmcond = TM_COND_INITIALIZER;
#endif

#define KV_HSIZE(p) ((size_t)1 << (p))
#define KV_HMASK(p) (KV_HSIZE(p) - 1)

/* FNV-1a over the key, then a final mix so that the low bits used as the bucket index depend on
 * every byte. */
uint32_t KV_CACHE_FN kv_hash(const char *key, size_t nkey)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < nkey; i++) {
        h ^= (unsigned char)key[i];
        h *= 0x100000001b3ull;
    }
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return (uint32_t)h;
}

/* Key comparison written out (memcmp is not transaction-safe without tmkit/libc.h). */
static int KV_TM_SAFE kv_keyeq(const kv_item *it, const char *key, size_t nkey)
{
    if (it->nkey != nkey)
        return 0;
#if KV_TMKIT || !KV_ANY_TM
    return memcmp(KV_ITEM_KEY(it), key, nkey) == 0;
#else
    for (size_t i = 0; i < nkey; i++)
        if (it->data[i] != key[i])
            return 0;
    return 1;
#endif
}

void kv_assoc_init(int hashpower)
{
    kv_hashpower = (unsigned)hashpower;
    kv_primary = calloc(KV_HSIZE(kv_hashpower), sizeof *kv_primary);
    if (!kv_primary) {
        fprintf(stderr, "kvcache: cannot allocate the hash table\n");
        exit(1);
    }
}

/* The chain a key with hash hv lives in. */
static kv_item **KV_CACHE_FN kv_bucket(uint32_t hv)
{
    if (kv_expanding) {
        unsigned ob = hv & KV_HMASK(kv_hashpower - 1);
        if (ob >= kv_expand_bucket)
            return &kv_old[ob];
    }
    return &kv_primary[hv & KV_HMASK(kv_hashpower)];
}

kv_item *KV_CACHE_FN kv_do_assoc_find(const char *key, size_t nkey, uint32_t hv)
{
    kv_item *it = *kv_bucket(hv);
    while (it && !kv_keyeq(it, key, nkey))
        it = it->hnext;
    return it;
}

void KV_CACHE_FN kv_do_assoc_insert(kv_item *it, uint32_t hv)
{
    kv_item **b = kv_bucket(hv);
    it->hnext = *b;
    *b = it;
    kv_hash_items++;
    if (!kv_expanding && !kv_expand_wanted &&
        (size_t)kv_hash_items > KV_HSIZE(kv_hashpower) * 3 / 2 && kv_hashpower < 31) {
        kv_expand_wanted = 1;
        KV_MAINT_SIGNAL();
    }
}

void KV_CACHE_FN kv_do_assoc_delete(const char *key, size_t nkey, uint32_t hv)
{
    kv_item **pp = kv_bucket(hv);
    while (*pp && !kv_keyeq(*pp, key, nkey))
        pp = &(*pp)->hnext;
    if (*pp) {
        *pp = (*pp)->hnext;
        kv_hash_items--;
    }
}

void kv_assoc_info(long *hashpower, long *hash_bytes, long *expanding)
{
    unsigned p;
    int e;
    KV_CACHE_BEGIN();
    p = kv_hashpower;
    e = kv_expanding;
    KV_CACHE_END();
    *hashpower = p;
    *hash_bytes = (long)(KV_HSIZE(p) * sizeof(kv_item *));
    *expanding = e;
}

/* Blocks until an insert asked for an expansion. */
static void kv_maint_wait(void)
{
#if KV_TMKIT
    tm_atomic_retry
    {
        if (!kv_expand_wanted)
            tm_cond_wait(&kv_maint_tmcond);
    }
#elif KV_TM_CACHE
    /* a wake-up, then the wish itself (read in a transaction, maint_lock no longer held) */
    for (int wanted = 0; !wanted;) {
        pthread_mutex_lock(&kv_maint_lock);
        while (!kv_maint_pending)
            pthread_cond_wait(&kv_maint_cond, &kv_maint_lock);
        kv_maint_pending = 0;
        pthread_mutex_unlock(&kv_maint_lock);
        __transaction_atomic { wanted = kv_expand_wanted; }
    }
#else
    pthread_mutex_lock(&kv_cache_lock);
    while (!kv_expand_wanted)
        pthread_cond_wait(&kv_maint_cond, &kv_cache_lock);
    pthread_mutex_unlock(&kv_cache_lock);
#endif
}

/* Moves up to KV_BULK old buckets into the primary table; 1 when the last one has moved. */
static int KV_CACHE_FN kv_do_migrate(size_t oldsize)
{
    for (int n = 0; n < KV_BULK && kv_expand_bucket < oldsize; n++) {
        kv_item *it = kv_old[kv_expand_bucket];
        while (it) {
            kv_item *next = it->hnext;
            uint32_t hv = kv_hash(KV_ITEM_KEY(it), it->nkey);
            kv_item **b = &kv_primary[hv & KV_HMASK(kv_hashpower)];
            it->hnext = *b;
            *b = it;
            it = next;
        }
        kv_old[kv_expand_bucket] = NULL;
        kv_expand_bucket++;
    }
    if (kv_expand_bucket < oldsize)
        return 0;
    kv_expanding = 0;
    return 1;
}

static void *kv_maintainer(void *arg)
{
    (void)arg;
    for (;;) {
        kv_maint_wait();
        unsigned newpower = kv_hashpower + 1; /* only this thread changes kv_hashpower */
        kv_item **table = calloc(KV_HSIZE(newpower), sizeof *table);
        if (!table) {
            sleep(1);
            continue;
        }
        kv_item **old;
        KV_CACHE_BEGIN();
        kv_old = kv_primary;
        kv_primary = table;
        kv_hashpower = newpower;
        kv_expand_bucket = 0;
        kv_expanding = 1;
        kv_expand_wanted = 0;
        KV_CACHE_END();
        old = kv_old;
        KV_LOG(1, "kvcache: hash table expanding to 2^%u buckets\n", newpower);
        int done = 0;
        while (!done) {
            KV_CACHE_BEGIN();
            done = kv_do_migrate(KV_HSIZE(newpower - 1));
            KV_CACHE_END();
        }
        free(old);
        KV_LOG(1, "kvcache: hash table expanded\n");
    }
    return NULL;
}

void kv_assoc_start_maintainer(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, kv_maintainer, NULL) != 0) {
        fprintf(stderr, "kvcache: cannot start the maintainer thread\n");
        exit(1);
    }
    pthread_detach(t);
}

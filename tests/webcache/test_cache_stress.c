/* test_cache_stress.c — many threads (more than the cores) share one cache: lookups, inserts
 * and releases of a skewed key set, with eviction by count and by bytes and with expiry (an
 * injected clock that every operation advances). Each thread holds up to HOLD entries at once
 * and checks that a held entry is intact (magic, key, body pattern) until it releases it, even
 * after the cache evicted or expired it. At the end: the invariants hold, the counters agree
 * (hits + misses = lookups, inserts - evictions - expired = entries) and, after the cache is
 * freed, no entry is left alive (each freed exactly once: wc_entry_free aborts on a second free).
 *
 * usage: test_cache_stress [THREADS [OPS_PER_THREAD]]   (default 6 threads, 12000 ops)
 */
#include "cache.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEYS 400
#define HOLD 4

static struct wc_cache *cache;
static uint64_t now_ms; /* atomic */
static long ops_per_thread;
static long lookups_total, errors; /* atomic */

static uint64_t fake_clock(void *arg)
{
    (void)arg;
    return __atomic_load_n(&now_ms, __ATOMIC_RELAXED);
}

static size_t size_of_key(unsigned k) { return 16 + (k * 2654435761u) % 3000; }

static int intact(const struct wc_entry *e)
{
    unsigned k;
    if (e->magic != WC_ENTRY_MAGIC || sscanf(e->key, "/man/3/k%u", &k) != 1)
        return 0;
    if (e->body_len != size_of_key(k))
        return 0;
    for (size_t i = 0; i < e->body_len; i++)
        if ((unsigned char)e->body[i] != (unsigned char)(k + i))
            return 0;
    return 1;
}

static void *worker(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg * 7919u + 1;
    struct wc_entry *held[HOLD] = {0};
    char key[64];
    unsigned char *body = malloc(4096);
    long lookups = 0;
    for (long op = 0; op < ops_per_thread; op++) {
        __atomic_fetch_add(&now_ms, 1, __ATOMIC_RELAXED);
        unsigned r = rand_r(&seed);
        unsigned k = (unsigned)(((unsigned long)(r % KEYS) * (r % KEYS)) / KEYS); /* skewed */
        int n = snprintf(key, sizeof key, "/man/3/k%u", k);
        int slot = (int)(r >> 20) % HOLD;
        if (held[slot]) { /* check before release: must not have been freed under us */
            if (!intact(held[slot]))
                __atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
            wc_cache_release(cache, held[slot]);
            held[slot] = NULL;
        }
        struct wc_entry *e = wc_cache_lookup(cache, key, (size_t)n);
        lookups++;
        if (!e) {
            size_t len = size_of_key(k);
            for (size_t i = 0; i < len; i++)
                body[i] = (unsigned char)(k + i);
            /* a third of the pages expire quickly, the rest never */
            uint64_t exp = k % 3 == 0 ? fake_clock(NULL) + 50 : 0;
            e = wc_entry_new(key, (size_t)n, "text/html", body, len, exp, 1 + k % 7);
            if (!e) {
                __atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
                break;
            }
            wc_cache_insert(cache, e);
        }
        if (!intact(e))
            __atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
        held[slot] = e;
    }
    for (int i = 0; i < HOLD; i++)
        if (held[i]) {
            if (!intact(held[i]))
                __atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
            wc_cache_release(cache, held[i]);
        }
    free(body);
    __atomic_fetch_add(&lookups_total, lookups, __ATOMIC_RELAXED);
    return NULL;
}

static int run(enum wc_policy policy, int threads, size_t max_entries, size_t max_bytes)
{
    struct wc_cache_opts o = {.policy = policy, .max_entries = max_entries,
                              .max_bytes = max_bytes, .max_object_size = 4096,
                              .clock_ms = fake_clock};
    cache = wc_cache_new(&o);
    lookups_total = errors = 0;
    pthread_t t[64];
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    struct wc_cache_stats s;
    wc_cache_get_stats(cache, &s);
    const char *why = wc_cache_check(cache);
    int bad = 0;
    if (why)
        fprintf(stderr, "invariant: %s\n", why), bad = 1;
    if (errors)
        fprintf(stderr, "%ld held entries were damaged or freed\n", errors), bad = 1;
    if (s.hits + s.misses != (uint64_t)lookups_total)
        fprintf(stderr, "hits+misses %llu != lookups %ld\n",
                (unsigned long long)(s.hits + s.misses), lookups_total), bad = 1;
    if (s.inserts - s.evictions - s.expired != s.entries)
        fprintf(stderr, "inserts-evictions-expired != entries\n"), bad = 1;
    if ((long)s.entries != wc_entry_live())
        fprintf(stderr, "live entries %ld != cached %llu after all releases\n", wc_entry_live(),
                (unsigned long long)s.entries), bad = 1;
    if (s.evictions == 0 || s.expired == 0)
        fprintf(stderr, "the run did not exercise eviction and expiry\n"), bad = 1;
    wc_cache_free(cache);
    if (wc_entry_live() != 0)
        fprintf(stderr, "%ld entries leaked\n", wc_entry_live()), bad = 1;
    printf("%s %-4s entries<=%zu bytes<=%zu: lookups %ld hits %llu inserts %llu evictions %llu "
           "expired %llu%s\n", wc_cache_sync_name(), wc_policy_name(policy), max_entries,
           max_bytes, lookups_total, (unsigned long long)s.hits, (unsigned long long)s.inserts,
           (unsigned long long)s.evictions, (unsigned long long)s.expired, bad ? " FAILED" : "");
    return bad;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 6;
    ops_per_thread = argc > 2 ? atol(argv[2]) : 12000;
    if (threads < 1 || threads > 64 || ops_per_thread < 1) {
        fprintf(stderr, "usage: test_cache_stress [THREADS(1-64) [OPS]]\n");
        return 2;
    }
    int bad = 0;
    for (int p = WC_POLICY_LRU; p <= WC_POLICY_GDSF; p++) {
        bad |= run((enum wc_policy)p, threads, 64, 1 << 20);   /* count-bound */
        bad |= run((enum wc_policy)p, threads, 1000, 40000);   /* byte-bound */
    }
    return bad;
}

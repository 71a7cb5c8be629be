/* test_cache.c — unit tests of apps/webcache/cache.c with an injected clock: LRU and GDSF
 * victim order, expiry, count/byte/object-size limits, duplicate inserts, entries held while
 * evicted, and no leak (live entry count back to zero). Built for the lock and the TM build.
 */
#include "cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fake_now = 1000;
static uint64_t fake_clock(void *arg) { (void)arg; return fake_now; }
static int failures;

#define CHECK(cond)                                                                             \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);           \
            failures++;                                                                         \
        }                                                                                       \
    } while (0)

static struct wc_cache *make(enum wc_policy p, size_t entries, size_t bytes, size_t object)
{
    struct wc_cache_opts o = {.policy = p, .max_entries = entries, .max_bytes = bytes,
                              .max_object_size = object, .clock_ms = fake_clock};
    struct wc_cache *c = wc_cache_new(&o);
    if (!c) {
        fprintf(stderr, "wc_cache_new failed\n");
        exit(1);
    }
    return c;
}

/* Inserts key with a body of `size` bytes; returns the insert result; drops our reference. */
static enum wc_insert_result put(struct wc_cache *c, const char *key, size_t size, double cost,
                                 uint64_t expires)
{
    char *body = malloc(size ? size : 1);
    memset(body, key[0], size);
    struct wc_entry *e = wc_entry_new(key, strlen(key), "text/plain", body, size, expires, cost);
    free(body);
    enum wc_insert_result r = wc_cache_insert(c, e);
    wc_cache_release(c, e);
    const char *why = wc_cache_check(c);
    if (why) {
        fprintf(stderr, "invariant after insert %s: %s\n", key, why);
        failures++;
    }
    return r;
}

static int has(struct wc_cache *c, const char *key) /* lookup, counts as an access */
{
    struct wc_entry *e = wc_cache_lookup(c, key, strlen(key));
    if (!e)
        return 0;
    CHECK(strcmp(e->key, key) == 0 && e->magic == WC_ENTRY_MAGIC);
    wc_cache_release(c, e);
    return 1;
}

static void victim_is(struct wc_cache *c, const char *want, int line)
{
    char buf[64] = "";
    wc_cache_victim(c, buf, sizeof buf);
    if (strcmp(buf, want) != 0) {
        fprintf(stderr, "line %d: victim is '%s', expected '%s'\n", line, buf, want);
        failures++;
    }
}

static void test_lru(void)
{
    struct wc_cache *c = make(WC_POLICY_LRU, 3, 1 << 20, 1 << 20);
    put(c, "a", 10, 1, 0);
    put(c, "b", 10, 1, 0);
    put(c, "c", 10, 1, 0);
    victim_is(c, "a", __LINE__);
    CHECK(has(c, "a"));           /* a becomes most recent: order b, c, a */
    victim_is(c, "b", __LINE__);
    CHECK(put(c, "d", 10, 1, 0) == WC_INSERTED); /* evicts b */
    CHECK(!has(c, "b"));
    CHECK(has(c, "c") && has(c, "a") && has(c, "d"));
    victim_is(c, "c", __LINE__);
    struct wc_cache_stats s;
    wc_cache_get_stats(c, &s);
    CHECK(s.entries == 3 && s.evictions == 1 && s.inserts == 4 && s.bytes == 30);
    CHECK(s.hits == 4 && s.misses == 1);
    wc_cache_free(c);
}

static void test_gdsf(void)
{
    /* H = L + freq * cost / size: big pages go first, frequent and costly ones stay. */
    struct wc_cache *c = make(WC_POLICY_GDSF, 3, 1 << 20, 1 << 20);
    put(c, "small", 10, 1, 0);    /* H = 0.1 */
    put(c, "big", 1000, 1, 0);    /* H = 0.001 */
    put(c, "mid", 100, 1, 0);     /* H = 0.01 */
    victim_is(c, "big", __LINE__);
    CHECK(put(c, "x", 50, 1, 0) == WC_INSERTED); /* evicts big; L = 0.001; x: H = 0.021 */
    CHECK(!has(c, "big"));
    victim_is(c, "mid", __LINE__);
    for (int i = 0; i < 19; i++)  /* mid: H = 0.001 + 20 * 0.01 = 0.201 > small's 0.1 */
        CHECK(has(c, "mid"));
    victim_is(c, "x", __LINE__);
    CHECK(put(c, "y", 10, 50, 0) == WC_INSERTED); /* costly: H = 0.021 + 5, evicts x */
    CHECK(!has(c, "x"));
    victim_is(c, "small", __LINE__);
    CHECK(put(c, "z", 1000, 1, 0) == WC_INSERTED); /* evicts small, L = 0.1; z: H = 0.101 */
    CHECK(!has(c, "small"));
    victim_is(c, "z", __LINE__); /* even with aging, one access of a big page ranks lowest */
    CHECK(has(c, "mid") && has(c, "y"));
    wc_cache_free(c);
}

static void test_expiry(void)
{
    struct wc_cache *c = make(WC_POLICY_LRU, 8, 1 << 20, 1 << 20);
    fake_now = 5000;
    put(c, "p", 10, 1, fake_now + 1000);
    put(c, "forever", 10, 1, 0);
    fake_now += 999;
    struct wc_entry *held = wc_cache_lookup(c, "p", 1);
    CHECK(held != NULL);
    fake_now += 1; /* now == expires: stale */
    CHECK(!has(c, "p"));
    struct wc_cache_stats s;
    wc_cache_get_stats(c, &s);
    CHECK(s.expired == 1 && s.entries == 1 && s.bytes == 10);
    CHECK(held && held->magic == WC_ENTRY_MAGIC && held->body[9] == 'p'); /* still ours */
    long before = wc_entry_live();
    wc_cache_release(c, held);
    CHECK(wc_entry_live() == before - 1);
    fake_now += 1000000;
    CHECK(has(c, "forever"));
    /* A stale entry met by an insert of the same key is replaced. */
    put(c, "q", 10, 1, fake_now + 5);
    fake_now += 5;
    CHECK(put(c, "q", 20, 1, 0) == WC_INSERTED);
    wc_cache_get_stats(c, &s);
    CHECK(s.expired == 2 && s.entries == 2 && s.bytes == 30);
    wc_cache_free(c);
}

static void test_limits(void)
{
    CHECK(wc_cache_new(&(struct wc_cache_opts){.max_entries = 4, .max_bytes = 100,
                                               .max_object_size = 101}) == NULL);
    CHECK(wc_cache_new(&(struct wc_cache_opts){.max_entries = 0, .max_bytes = 100,
                                               .max_object_size = 10}) == NULL);
    struct wc_cache *c = make(WC_POLICY_LRU, 100, 1000, 500);
    CHECK(put(c, "a", 300, 1, 0) == WC_INSERTED);
    CHECK(put(c, "b", 300, 1, 0) == WC_INSERTED);
    CHECK(put(c, "c", 300, 1, 0) == WC_INSERTED);
    CHECK(put(c, "d", 300, 1, 0) == WC_INSERTED); /* 1200 > 1000: evicts a */
    CHECK(!has(c, "a"));
    CHECK(put(c, "e", 500, 1, 0) == WC_INSERTED); /* needs 2 evictions: b, c */
    struct wc_cache_stats s;
    wc_cache_get_stats(c, &s);
    CHECK(s.entries == 2 && s.bytes == 800 && s.evictions == 3);
    CHECK(put(c, "huge", 501, 1, 0) == WC_TOO_BIG);
    CHECK(!has(c, "huge"));
    CHECK(put(c, "d", 10, 1, 0) == WC_EXISTS); /* the first copy stays */
    struct wc_entry *d = wc_cache_lookup(c, "d", 1);
    CHECK(d && d->body_len == 300);
    if (d)
        wc_cache_release(c, d);
    wc_cache_get_stats(c, &s);
    CHECK(s.rejected == 2 && s.entries == 2);
    wc_cache_free(c);

    c = make(WC_POLICY_GDSF, 5, 1 << 20, 1 << 20); /* count limit */
    char key[16];
    for (int i = 0; i < 50; i++) {
        snprintf(key, sizeof key, "k%d", i);
        put(c, key, 10 + i, 1, 0);
    }
    wc_cache_get_stats(c, &s);
    CHECK(s.entries == 5 && s.evictions == 45);
    wc_cache_free(c);
}

static void test_held_while_evicted(void)
{
    struct wc_cache *c = make(WC_POLICY_LRU, 2, 1 << 20, 1 << 20);
    put(c, "h", 64, 1, 0);
    struct wc_entry *h = wc_cache_lookup(c, "h", 1);
    CHECK(h != NULL);
    put(c, "i", 10, 1, 0);
    put(c, "j", 10, 1, 0); /* evicts h (least recent) while we hold it */
    CHECK(!has(c, "h"));
    CHECK(h && h->magic == WC_ENTRY_MAGIC && h->body[63] == 'h' && h->refs == 1);
    long before = wc_entry_live();
    if (h)
        wc_cache_release(c, h);
    CHECK(wc_entry_live() == before - 1);
    wc_cache_free(c);
}

int main(void)
{
    test_lru();
    test_gdsf();
    test_expiry();
    test_limits();
    test_held_while_evicted();
    CHECK(wc_entry_live() == 0);
    if (failures) {
        fprintf(stderr, "test_cache (%s): %d failure(s)\n", wc_cache_sync_name(), failures);
        return 1;
    }
    printf("test_cache (%s): ok\n", wc_cache_sync_name());
    return 0;
}

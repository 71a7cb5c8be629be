/* kv_cache.c — the cache operations the protocols call; each is one cache section (two for
 * a store: allocate, fill outside the lock, then link).
 *
 * These are the critical sections the experiment transactifies (kv_sync.h): everything between
 * KV_CACHE_BEGIN and KV_CACHE_END is a cache_lock region, a relaxed or an atomic transaction
 * depending on the build. The clock is read before a section (time() is not transaction-safe).
 * Sections that may allocate are wrapped in KV_SLABS_SWAP_BEGIN/END (the slabs lock taken before
 * the transaction in the builds where the cache is atomic and the slabs are still locked).
 *
 * Values are immutable while linked: append, prepend, incr and decr build a new item and swap it
 * in (except that a decrement that shortens the number pads it with spaces to the old length,
 * as memcached's in-place update does, so clients see the same bytes).
 */
#include <string.h>
#include <time.h>

#include "kv.h"

#define KV_REL_LIMIT (60 * 60 * 24 * 30) /* exptimes above this are unix times */

int64_t kv_now(void) { return (int64_t)time(NULL); }

int64_t kv_abs_exptime(int64_t exptime, int64_t now)
{
    if (exptime == 0)
        return 0;
    if (exptime < 0)
        return 1; /* already expired */
    if (exptime > KV_REL_LIMIT)
        return exptime;
    return now + exptime;
}

/* flush_all <arg>: 0 or negative now; up to 30 days a delay; above, a unix time (a time before
 * anything was stored then flushes nothing, as in memcached). */
int64_t kv_flush_when(int64_t arg, int64_t now)
{
    if (arg <= 0)
        return 0;
    return arg > KV_REL_LIMIT ? arg : now + arg;
}

kv_item *kv_alloc(const char *key, size_t nkey, uint32_t flags, int64_t exptime, size_t nbytes,
                  int *why)
{
    kv_item *it;
    int64_t now = kv_now();
    if (kv_slabs_clsid(KV_ITEM_TOTAL(nkey, nbytes)) == 0) {
        *why = KV_TOO_LARGE;
        return NULL;
    }
    KV_SLABS_SWAP_BEGIN();
    KV_CACHE_BEGIN();
    it = kv_do_item_alloc(key, nkey, flags, exptime, nbytes, now);
    KV_CACHE_END();
    KV_SLABS_SWAP_END();
    if (!it)
        *why = KV_NO_MEMORY;
    return it;
}

/* Replaces `old` (linked, referenced by the caller) by `it` in the table. */
static void KV_CACHE_FN kv_do_replace(kv_item *old, kv_item *it, uint32_t hv, int64_t now)
{
    kv_do_item_unlink(old, hv);
    kv_do_item_link(it, hv, now);
}

/* old + it's value (append) or it + old's (prepend) in a new item; NULL if out of memory. */
static kv_item *KV_CACHE_FN kv_do_concat(kv_item *old, kv_item *it, int append, int64_t now)
{
    kv_item *n = kv_do_item_alloc(KV_ITEM_KEY(old), old->nkey, old->flags, old->exptime,
                                  (size_t)old->nbytes + it->nbytes, now);
    if (!n)
        return NULL;
    kv_item *first = append ? old : it, *second = append ? it : old;
    memcpy(KV_ITEM_VALUE(n), KV_ITEM_VALUE(first), first->nbytes);
    memcpy(KV_ITEM_VALUE(n) + first->nbytes, KV_ITEM_VALUE(second), second->nbytes);
    return n;
}

static int KV_CACHE_FN kv_do_store(kv_item *it, enum kv_store_op op, uint64_t *cas, uint32_t hv,
                                   int64_t now)
{
    int res = KV_NOT_STORED;
    kv_item *old = kv_do_item_get(KV_ITEM_KEY(it), it->nkey, hv, now, NULL);
    kv_item *stored = NULL;
    if (op == KV_ADD) {
        if (!old)
            stored = it;
    } else if (op == KV_SET) {
        stored = it;
    } else if (!old) {
        res = op == KV_CAS ? KV_NOT_FOUND : KV_NOT_STORED;
    } else if (op == KV_CAS || ((op == KV_APPEND || op == KV_PREPEND) && *cas)) {
        if (old->cas != *cas || !kv_settings.use_cas) /* -C: no id ever matches */
            res = KV_EXISTS;
        else if (op == KV_CAS)
            stored = it;
    } else if (op == KV_REPLACE) {
        stored = it;
    }
    /* a concatenation that cannot be allocated (past -I, or no memory) is NOT_STORED, as
     * memcached answers */
    if (!stored && old && res == KV_NOT_STORED && (op == KV_APPEND || op == KV_PREPEND))
        stored = kv_do_concat(old, it, op == KV_APPEND, now);
    if (stored) {
        if (old)
            kv_do_replace(old, stored, hv, now);
        else
            kv_do_item_link(stored, hv, now);
        *cas = stored->cas;
        if (stored != it)
            kv_do_item_release(stored);
        res = KV_STORED;
    }
    if (old)
        kv_do_item_release(old);
    return res;
}

int kv_store(kv_item *it, enum kv_store_op op, uint64_t *cas)
{
    int res;
    int64_t now = kv_now();
    uint32_t hv = kv_hash(KV_ITEM_KEY(it), it->nkey);
    KV_SLABS_SWAP_BEGIN();
    KV_CACHE_BEGIN();
    res = kv_do_store(it, op, cas, hv, now);
    KV_CACHE_END();
    KV_SLABS_SWAP_END();
    return res;
}

kv_item *kv_get(const char *key, size_t nkey, int touch, int64_t exptime, int *dead)
{
    kv_item *it;
    int64_t now = kv_now();
    uint32_t hv = kv_hash(key, nkey);
    KV_CACHE_BEGIN();
    it = kv_do_item_get(key, nkey, hv, now, dead);
    if (it && touch)
        it->exptime = exptime;
    KV_CACHE_END();
    return it;
}

/* Outside any cache section (kv_sync.h, KV_REF_PUT_IS_LAST): the last holder of an unlinked
 * item frees it; nobody can take a new reference to it, as it is in no table. */
void kv_release(kv_item *it)
{
    if (KV_REF_PUT_IS_LAST(it))
        kv_slabs_free(it);
}

int kv_delete(const char *key, size_t nkey)
{
    int res = KV_NOT_FOUND;
    int64_t now = kv_now();
    uint32_t hv = kv_hash(key, nkey);
    KV_CACHE_BEGIN();
    kv_item *it = kv_do_item_get(key, nkey, hv, now, NULL);
    if (it) {
        kv_do_item_unlink(it, hv);
        kv_do_item_release(it);
        res = KV_DELETED;
    }
    KV_CACHE_END();
    return res;
}

int kv_touch(const char *key, size_t nkey, int64_t exptime)
{
    int res = KV_NOT_FOUND;
    int64_t now = kv_now();
    uint32_t hv = kv_hash(key, nkey);
    KV_CACHE_BEGIN();
    kv_item *it = kv_do_item_get(key, nkey, hv, now, NULL);
    if (it) {
        it->exptime = exptime;
        kv_do_item_release(it);
        res = KV_TOUCHED;
    }
    KV_CACHE_END();
    return res;
}

/* The value as a decimal number, read as memcached reads it: optional leading white space,
 * digits, then the end of the value or white space (after which anything may follow: "2 12"
 * is 2); 0 if it is not one. */
static int KV_TM_SAFE kv_isspace(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\v' || ch == '\f' || ch == '\r';
}

static int KV_TM_SAFE kv_parse_u64(const char *s, size_t n, uint64_t *v)
{
    uint64_t x = 0;
    size_t i = 0, start;
    while (i < n && kv_isspace(s[i]))
        i++;
    for (start = i; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        uint64_t d = (uint64_t)(s[i] - '0');
        if (x > (UINT64_MAX - d) / 10)
            return 0;
        x = x * 10 + d;
    }
    if (i == start || (i < n && !kv_isspace(s[i])))
        return 0;
    *v = x;
    return 1;
}

static size_t KV_TM_SAFE kv_format_u64(uint64_t v, char *buf)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    return n;
}

static int KV_CACHE_FN kv_do_delta(const char *key, size_t nkey, int incr, uint64_t delta,
                                   uint64_t *value, uint64_t *cas, uint32_t hv, int64_t now)
{
    int res = KV_NOT_FOUND;
    kv_item *it = kv_do_item_get(key, nkey, hv, now, NULL);
    uint64_t v;
    if (!it)
        return res;
    if (*cas && *cas != it->cas) {
        res = KV_EXISTS;
    } else if (!kv_parse_u64(KV_ITEM_VALUE(it), it->nbytes, &v)) {
        res = KV_NON_NUMERIC;
    } else {
        char digits[24];
        v = incr ? v + delta : (delta > v ? 0 : v - delta);
        size_t len = kv_format_u64(v, digits);
        size_t vlen = len < it->nbytes ? it->nbytes : len;
        kv_item *n = kv_do_item_alloc(key, nkey, it->flags, it->exptime, vlen, now);
        if (!n) {
            res = KV_NO_MEMORY;
        } else {
            for (size_t i = 0; i < vlen; i++)
                KV_ITEM_VALUE(n)[i] = i < len ? digits[i] : ' ';
            kv_do_replace(it, n, hv, now);
            *cas = n->cas;
            *value = v;
            kv_do_item_release(n);
            res = KV_OK;
        }
    }
    kv_do_item_release(it);
    return res;
}

int kv_delta(const char *key, size_t nkey, int incr, uint64_t delta, uint64_t *value,
             uint64_t *cas)
{
    int res;
    int64_t now = kv_now();
    uint32_t hv = kv_hash(key, nkey);
    KV_SLABS_SWAP_BEGIN();
    KV_CACHE_BEGIN();
    res = kv_do_delta(key, nkey, incr, delta, value, cas, hv, now);
    KV_CACHE_END();
    KV_SLABS_SWAP_END();
    return res;
}

int kv_delta_create(const char *key, size_t nkey, uint64_t initial, int64_t exptime,
                    uint64_t *cas)
{
    char digits[24];
    int why;
    size_t len = kv_format_u64(initial, digits);
    kv_item *it = kv_alloc(key, nkey, 0, exptime, len, &why);
    if (!it)
        return why;
    memcpy(KV_ITEM_VALUE(it), digits, len);
    *cas = 0;
    int res = kv_store(it, KV_ADD, cas);
    kv_release(it);
    return res;
}

void kv_flush(int64_t arg)
{
    int64_t now = kv_now();
    int64_t when = kv_flush_when(arg, now);
    KV_CACHE_BEGIN();
    kv_do_items_flush(when, now);
    KV_CACHE_END();
}

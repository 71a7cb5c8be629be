/* kv_text_store.c — the text protocol's storage commands: set, add, replace, append, prepend,
 * cas.
 *
 * The command line is checked first (a malformed one is answered at once and its value, if any,
 * is then read as commands, as memcached does; so is a length that does not fit a 32-bit int
 * with its \r\n, such as 2147483647); then an item of the announced size is allocated and the
 * value streams into it as it arrives (kv_text_value), without buffering it whole. The two bytes
 * after the value must be \r\n ("CLIENT_ERROR bad data chunk" otherwise). A value that cannot
 * be stored (over -I, or no memory) is refused at once, as memcached 1.4 does, and then read and
 * dropped without being kept; a failed `set` also deletes the key's old value, as memcached does.
 */
#include <string.h>

#include "kv_text.h"

void kv_cmd_store(struct kv_conn *c, struct kv_line *l, enum kv_store_op op)
{
    int want = op == KV_CAS ? 6 : 5;
    uint64_t flags, bytes, cas = 0;
    int64_t exptime;
    c->noreply = l->n == want + 1 && !strcmp(l->tok[want], "noreply");
    /* flags: any 64-bit number, of which the low 32 bits are kept, as memcached 1.4-1.6 do */
    if (l->len[1] > KV_KEY_MAX || !kv_parse_u64s(l->tok[2], &flags) ||
        !kv_parse_i64s(l->tok[3], &exptime) || !kv_parse_u64s(l->tok[4], &bytes) ||
        bytes > INT32_MAX - 2 || (op == KV_CAS && !kv_parse_u64s(l->tok[5], &cas)) ||
        (l->n == want + 1 && !c->noreply)) {
        c->noreply = 0;
        kv_outs(c, "CLIENT_ERROR bad command line format\r\n");
        return;
    }
    int why;
    kv_item *it = kv_alloc(l->tok[1], l->len[1], (uint32_t)flags, kv_abs_exptime(exptime, kv_now()),
                           (size_t)bytes, &why);
    kv_tstat_add(c->stats, KV_TS_cmd_set, 1);
    KV_DETAIL(l->tok[1], l->len[1], KV_DETAIL_SET, 0);
    if (!it) {
        /* answered now; the value is then read and dropped */
        kv_tstat_add(c->stats, why == KV_TOO_LARGE ? KV_TS_store_too_large : KV_TS_store_no_memory,
                     1);
        kv_reply(c, why == KV_TOO_LARGE ? "SERVER_ERROR object too large for cache"
                                        : "SERVER_ERROR out of memory storing object");
        c->swallow = (size_t)bytes + 2;
        if (op == KV_SET) /* memcached drops the old value rather than keep a stale one */
            kv_delete(l->tok[1], l->len[1]);
        return;
    }
    c->item = it;
    c->item_off = 0;
    c->store_op = op;
    c->store_cas = cas;
}

static const char *kv_store_answer(struct kv_conn *c, int res, int op)
{
    if (op == KV_CAS)
        kv_tstat_add(c->stats, res == KV_STORED   ? KV_TS_cas_hits
                               : res == KV_EXISTS ? KV_TS_cas_badval
                                                  : KV_TS_cas_misses, 1);
    switch (res) {
    case KV_STORED: return "STORED";
    case KV_EXISTS: return "EXISTS";
    case KV_NOT_FOUND: return "NOT_FOUND";
    case KV_NO_MEMORY: return "SERVER_ERROR out of memory storing object";
    default: return "NOT_STORED";
    }
}

int kv_text_value(struct kv_conn *c)
{
    kv_item *it = c->item;
    size_t total = (size_t)it->nbytes + 2;
    while (c->item_off < total && c->rlen > 0) {
        size_t n = total - c->item_off;
        if (n > c->rlen)
            n = c->rlen;
        const char *src = c->rbuf + c->rpos;
        size_t v = c->item_off < it->nbytes ? it->nbytes - c->item_off : 0;
        if (v > n)
            v = n;
        memcpy(KV_ITEM_VALUE(it) + c->item_off, src, v);
        for (size_t i = v; i < n; i++)
            c->tail[c->item_off + i - it->nbytes] = src[i];
        c->item_off += n;
        kv_consume(c, n);
    }
    if (c->item_off < total)
        return 0;
    c->item = NULL;
    if (c->tail[0] != '\r' || c->tail[1] != '\n') {
        kv_outs(c, "CLIENT_ERROR bad data chunk\r\n");
    } else {
        uint64_t cas = c->store_cas;
        int res = kv_store(it, (enum kv_store_op)c->store_op, &cas);
        kv_reply(c, kv_store_answer(c, res, c->store_op));
    }
    kv_release(it);
    c->noreply = 0;
    return 1;
}


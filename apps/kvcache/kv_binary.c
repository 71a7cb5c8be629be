/* kv_binary.c — memcached's binary protocol: the core commands memslap --binary and libmemcached
 * use (get/getq/getk/getkq, set/add/replace and their quiet forms, delete, incr/decr, append/
 * prepend, touch/gat/gatq, flush, noop, version, stat, quit).
 *
 * A packet is a 24-byte header (magic 0x80, opcode, key length, extras length, total body length,
 * an opaque word echoed back, a CAS id) and a body of extras, key and value. The whole packet is
 * buffered before it is executed; a packet whose body is larger than an item can be gets "Too
 * large" (storage commands) or "Invalid arguments" and its body is discarded. A bad magic byte
 * closes the connection (the stream cannot be resynchronized), and so does a packet whose
 * lengths do not fit its command (memcached does the same). Quiet commands answer only on
 * error (and quiet gets only on a hit). Status codes and messages are memcached's.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "kv_conn.h"

enum {
    OP_GET = 0x00, OP_SET = 0x01, OP_ADD = 0x02, OP_REPLACE = 0x03, OP_DELETE = 0x04,
    OP_INCR = 0x05, OP_DECR = 0x06, OP_QUIT = 0x07, OP_FLUSH = 0x08, OP_GETQ = 0x09,
    OP_NOOP = 0x0a, OP_VERSION = 0x0b, OP_GETK = 0x0c, OP_GETKQ = 0x0d, OP_APPEND = 0x0e,
    OP_PREPEND = 0x0f, OP_STAT = 0x10, OP_SETQ = 0x11, OP_ADDQ = 0x12, OP_REPLACEQ = 0x13,
    OP_DELETEQ = 0x14, OP_INCRQ = 0x15, OP_DECRQ = 0x16, OP_QUITQ = 0x17, OP_FLUSHQ = 0x18,
    OP_APPENDQ = 0x19, OP_PREPENDQ = 0x1a, OP_TOUCH = 0x1c, OP_GAT = 0x1d, OP_GATQ = 0x1e,
};
enum {
    ST_OK = 0, ST_NOT_FOUND = 1, ST_EXISTS = 2, ST_TOO_LARGE = 3, ST_INVALID = 4,
    ST_NOT_STORED = 5, ST_NON_NUMERIC = 6, ST_UNKNOWN = 0x81, ST_NO_MEMORY = 0x82,
};

struct kv_req {
    uint8_t opcode, extlen;
    uint16_t keylen;
    uint32_t bodylen, opaque;
    uint64_t cas;
    const char *ext, *key, *val;
    size_t vallen;
};

static uint64_t kv_get64(const char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | (uint8_t)p[i];
    return v;
}

static uint32_t kv_get32(const char *p) { return (uint32_t)(kv_get64(p) >> 32); }

static void kv_put64(char *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (char)(v & 0xff);
}

static void kv_resp(struct kv_conn *c, const struct kv_req *r, uint16_t status, uint64_t cas,
                    const void *ext, uint8_t extlen, const void *key, uint16_t keylen,
                    const void *val, size_t vallen)
{
    char h[24];
    uint32_t body = (uint32_t)(extlen + keylen + vallen);
    h[0] = (char)0x81;
    h[1] = (char)r->opcode;
    h[2] = (char)(keylen >> 8);
    h[3] = (char)keylen;
    h[4] = (char)extlen;
    h[5] = 0;
    h[6] = (char)(status >> 8);
    h[7] = (char)status;
    uint32_t nb = htonl(body);
    memcpy(h + 8, &nb, 4);
    memcpy(h + 12, &r->opaque, 4); /* echoed as received */
    kv_put64(h + 16, cas);
    kv_out(c, h, 24);
    if (extlen)
        kv_out(c, ext, extlen);
    if (keylen)
        kv_out(c, key, keylen);
    if (vallen)
        kv_out(c, val, vallen);
}

static void kv_error(struct kv_conn *c, const struct kv_req *r, uint16_t status)
{
    const char *msg = status == ST_NOT_FOUND    ? "Not found"
                      : status == ST_EXISTS     ? "Data exists for key."
                      : status == ST_TOO_LARGE  ? "Too large."
                      : status == ST_INVALID    ? "Invalid arguments"
                      : status == ST_NOT_STORED ? "Not stored."
                      : status == ST_NON_NUMERIC ? "Non-numeric server-side value for incr or decr"
                      : status == ST_NO_MEMORY  ? "Out of memory"
                                                : "Unknown command";
    kv_resp(c, r, status, 0, NULL, 0, NULL, 0, msg, strlen(msg));
}

static int kv_quiet(uint8_t op)
{
    return op == OP_GETQ || op == OP_GETKQ || (op >= OP_SETQ && op <= OP_PREPENDQ) ||
           op == OP_GATQ;
}

static void kv_bin_get(struct kv_conn *c, const struct kv_req *r)
{
    int touch = r->opcode == OP_TOUCH || r->opcode == OP_GAT || r->opcode == OP_GATQ;
    int with_key = r->opcode == OP_GETK || r->opcode == OP_GETKQ;
    int64_t exptime = touch ? kv_abs_exptime((int32_t)kv_get32(r->ext), kv_now()) : 0;
    kv_item *it = kv_get(r->key, r->keylen, touch, exptime);
    kv_tstat_add(c->stats, touch ? KV_TS_cmd_touch : KV_TS_cmd_get, 1);
    if (!it) {
        kv_tstat_add(c->stats, touch ? KV_TS_touch_misses : KV_TS_get_misses, 1);
        if (kv_quiet(r->opcode))
            return;
        if (with_key)
            kv_resp(c, r, ST_NOT_FOUND, 0, NULL, 0, r->key, r->keylen, NULL, 0);
        else
            kv_error(c, r, ST_NOT_FOUND);
        return;
    }
    kv_tstat_add(c->stats, touch ? KV_TS_touch_hits : KV_TS_get_hits, 1);
    char flags[4];
    uint32_t nf = htonl(it->flags);
    memcpy(flags, &nf, 4);
    if (r->opcode == OP_TOUCH)
        kv_resp(c, r, ST_OK, it->cas, flags, 4, NULL, 0, NULL, 0);
    else
        kv_resp(c, r, ST_OK, it->cas, flags, 4, with_key ? r->key : NULL,
                with_key ? r->keylen : 0, KV_ITEM_VALUE(it), it->nbytes);
    kv_release(it);
}

static void kv_bin_store(struct kv_conn *c, const struct kv_req *r)
{
    uint8_t op = r->opcode >= OP_SETQ ? (uint8_t)(r->opcode - OP_SETQ + OP_SET) : r->opcode;
    if (r->opcode == OP_APPENDQ || r->opcode == OP_PREPENDQ)
        op = r->opcode == OP_APPENDQ ? OP_APPEND : OP_PREPEND;
    int concat = op == OP_APPEND || op == OP_PREPEND;
    /* a CAS id makes set and replace compare-and-swap */
    enum kv_store_op sop = op == OP_ADD       ? KV_ADD
                           : op == OP_APPEND  ? KV_APPEND
                           : op == OP_PREPEND ? KV_PREPEND
                           : r->cas           ? KV_CAS
                           : op == OP_REPLACE ? KV_REPLACE
                                              : KV_SET;
    uint32_t flags = concat ? 0 : kv_get32(r->ext);
    int64_t exptime = concat ? 0 : kv_abs_exptime((int32_t)kv_get32(r->ext + 4), kv_now());
    int why;
    kv_tstat_add(c->stats, KV_TS_cmd_set, 1);
    kv_item *it = kv_alloc(r->key, r->keylen, flags, exptime, r->vallen, &why);
    if (!it) {
        kv_error(c, r, why == KV_TOO_LARGE ? ST_TOO_LARGE : ST_NO_MEMORY);
        if (sop == KV_SET)
            kv_delete(r->key, r->keylen);
        return;
    }
    memcpy(KV_ITEM_VALUE(it), r->val, r->vallen);
    uint64_t cas = r->cas;
    int res = kv_store(it, sop, &cas);
    kv_release(it);
    uint16_t st = res == KV_STORED      ? ST_OK
                  : res == KV_EXISTS    ? ST_EXISTS
                  : res == KV_NOT_FOUND ? ST_NOT_FOUND
                  : res == KV_NO_MEMORY ? ST_NO_MEMORY
                  : op == OP_ADD        ? ST_EXISTS
                  : op == OP_REPLACE    ? ST_NOT_FOUND
                                        : ST_NOT_STORED;
    if (sop == KV_CAS)
        kv_tstat_add(c->stats, st == ST_OK ? KV_TS_cas_hits : st == ST_EXISTS ? KV_TS_cas_badval
                                                                               : KV_TS_cas_misses, 1);
    if (st != ST_OK)
        kv_error(c, r, st);
    else if (!kv_quiet(r->opcode))
        kv_resp(c, r, ST_OK, cas, NULL, 0, NULL, 0, NULL, 0);
}

static void kv_bin_delta(struct kv_conn *c, const struct kv_req *r)
{
    int incr = r->opcode == OP_INCR || r->opcode == OP_INCRQ;
    uint64_t delta = kv_get64(r->ext), initial = kv_get64(r->ext + 8), value = 0, cas = r->cas;
    uint32_t exp = kv_get32(r->ext + 16);
    int res = kv_delta(r->key, r->keylen, incr, delta, &value, &cas);
    if (res == KV_NOT_FOUND && exp != 0xffffffffu) {
        res = kv_delta_create(r->key, r->keylen, initial, kv_abs_exptime((int32_t)exp, kv_now()),
                              &cas);
        value = initial;
        if (res == KV_NOT_STORED) /* lost a race with another creator: apply to its value */
            res = kv_delta(r->key, r->keylen, incr, delta, &value, &cas);
        else if (res == KV_STORED)
            res = KV_OK;
    }
    enum kv_tstat_id hit = incr ? KV_TS_incr_hits : KV_TS_decr_hits;
    kv_tstat_add(c->stats, res == KV_NOT_FOUND ? hit - 1 : hit, 1);
    if (res != KV_OK) {
        kv_error(c, r, res == KV_NOT_FOUND    ? ST_NOT_FOUND
                       : res == KV_EXISTS     ? ST_EXISTS
                       : res == KV_NON_NUMERIC ? ST_NON_NUMERIC
                       : res == KV_TOO_LARGE  ? ST_TOO_LARGE
                                              : ST_NO_MEMORY);
        return;
    }
    if (kv_quiet(r->opcode))
        return;
    char v[8];
    kv_put64(v, value);
    kv_resp(c, r, ST_OK, cas, NULL, 0, NULL, 0, v, 8);
}

static void kv_bin_stat(struct kv_conn *c, const struct kv_req *r)
{
    static __thread char buf[64 * 1024];
    char group[32] = "";
    if (r->keylen && r->keylen < sizeof group)
        memcpy(group, r->key, r->keylen), group[r->keylen] = '\0';
    if (!strcmp(group, "reset")) {
        kv_stats_reset();
        kv_resp(c, r, ST_OK, 0, NULL, 0, NULL, 0, NULL, 0);
        return;
    }
    int n = r->keylen >= sizeof group ? -1 : kv_stats_report(group, buf, sizeof buf);
    if (n < 0) {
        kv_error(c, r, ST_NOT_FOUND);
        return;
    }
    buf[n] = '\0';
    for (char *line = buf; *line;) { /* "STAT name value\r\n" */
        char *end = strstr(line, "\r\n");
        if (!end)
            break;
        char *name = line + 5, *sp = memchr(name, ' ', (size_t)(end - name));
        if (sp)
            kv_resp(c, r, ST_OK, 0, NULL, 0, name, (uint16_t)(sp - name), sp + 1,
                    (size_t)(end - sp - 1));
        line = end + 2;
    }
    kv_resp(c, r, ST_OK, 0, NULL, 0, NULL, 0, NULL, 0);
}

/* The extras length each command must have (-1: any of 0 or 4 for flush). */
static int kv_check(const struct kv_req *r)
{
    uint8_t op = r->opcode;
    int ext = r->extlen, key = r->keylen > 0, val = r->vallen > 0;
    switch (op) {
    case OP_GET: case OP_GETQ: case OP_GETK: case OP_GETKQ: case OP_DELETE: case OP_DELETEQ:
        return ext == 0 && key && !val;
    case OP_SET: case OP_SETQ: case OP_ADD: case OP_ADDQ: case OP_REPLACE: case OP_REPLACEQ:
        return ext == 8 && key;
    case OP_APPEND: case OP_APPENDQ: case OP_PREPEND: case OP_PREPENDQ:
        return ext == 0 && key;
    case OP_INCR: case OP_INCRQ: case OP_DECR: case OP_DECRQ:
        return ext == 20 && key && !val;
    case OP_TOUCH: case OP_GAT: case OP_GATQ:
        return ext == 4 && key && !val;
    case OP_FLUSH: case OP_FLUSHQ:
        return (ext == 0 || ext == 4) && !key && !val;
    case OP_NOOP: case OP_VERSION: case OP_QUIT: case OP_QUITQ:
        return ext == 0 && !key && !val;
    case OP_STAT:
        return ext == 0 && !val;
    default:
        return 1;
    }
}

static void kv_bin_exec(struct kv_conn *c, const struct kv_req *r)
{
    if (!kv_check(r) || r->keylen > KV_KEY_MAX) {
        kv_error(c, r, ST_INVALID);
        c->closing = 1; /* as memcached: a malformed packet ends the connection */
        return;
    }
    switch (r->opcode) {
    case OP_GET: case OP_GETQ: case OP_GETK: case OP_GETKQ: case OP_TOUCH: case OP_GAT:
    case OP_GATQ:
        kv_bin_get(c, r);
        break;
    case OP_SET: case OP_SETQ: case OP_ADD: case OP_ADDQ: case OP_REPLACE: case OP_REPLACEQ:
    case OP_APPEND: case OP_APPENDQ: case OP_PREPEND: case OP_PREPENDQ:
        kv_bin_store(c, r);
        break;
    case OP_DELETE: case OP_DELETEQ: {
        int res = kv_delete(r->key, r->keylen);
        kv_tstat_add(c->stats, res == KV_DELETED ? KV_TS_delete_hits : KV_TS_delete_misses, 1);
        if (res != KV_DELETED)
            kv_error(c, r, ST_NOT_FOUND);
        else if (r->opcode == OP_DELETE)
            kv_resp(c, r, ST_OK, 0, NULL, 0, NULL, 0, NULL, 0);
        break;
    }
    case OP_INCR: case OP_INCRQ: case OP_DECR: case OP_DECRQ:
        kv_bin_delta(c, r);
        break;
    case OP_FLUSH: case OP_FLUSHQ:
        kv_flush(r->extlen == 4 ? (int32_t)kv_get32(r->ext) : 0);
        kv_tstat_add(c->stats, KV_TS_cmd_flush, 1);
        if (r->opcode == OP_FLUSH)
            kv_resp(c, r, ST_OK, 0, NULL, 0, NULL, 0, NULL, 0);
        break;
    case OP_NOOP:
        kv_resp(c, r, ST_OK, 0, NULL, 0, NULL, 0, NULL, 0);
        break;
    case OP_VERSION:
        kv_resp(c, r, ST_OK, 0, NULL, 0, NULL, 0, KV_VERSION, strlen(KV_VERSION));
        break;
    case OP_QUIT: case OP_QUITQ:
        if (r->opcode == OP_QUIT)
            kv_resp(c, r, ST_OK, 0, NULL, 0, NULL, 0, NULL, 0);
        c->closing = 1;
        break;
    case OP_STAT:
        kv_bin_stat(c, r);
        break;
    default:
        kv_error(c, r, ST_UNKNOWN);
    }
}

int kv_binary_step(struct kv_conn *c)
{
    if (c->rlen < 24)
        return 0;
    const char *h = c->rbuf + c->rpos;
    if ((uint8_t)h[0] != 0x80) {
        c->closing = 1; /* cannot find the next packet */
        kv_consume(c, c->rlen);
        return 0;
    }
    struct kv_req r = {.opcode = (uint8_t)h[1], .extlen = (uint8_t)h[4]};
    r.keylen = (uint16_t)((uint8_t)h[2] << 8 | (uint8_t)h[3]);
    r.bodylen = kv_get32(h + 8);
    memcpy(&r.opaque, h + 12, 4);
    r.cas = kv_get64(h + 16);
    if ((size_t)r.extlen + r.keylen > r.bodylen) {
        kv_error(c, &r, ST_INVALID);
        c->closing = 1;
        kv_consume(c, c->rlen);
        return 0;
    }
    if (r.bodylen > kv_settings.item_max + 1024) { /* never buffered: refused, then dropped */
        kv_error(c, &r, r.opcode <= OP_REPLACE || r.opcode >= OP_APPEND ? ST_TOO_LARGE : ST_INVALID);
        kv_consume(c, 24);
        c->swallow = r.bodylen;
        return 1;
    }
    if (c->rlen < 24 + (size_t)r.bodylen)
        return 0;
    r.ext = h + 24;
    r.key = r.ext + r.extlen;
    r.val = r.key + r.keylen;
    r.vallen = r.bodylen - r.extlen - r.keylen;
    kv_bin_exec(c, &r);
    kv_consume(c, 24 + (size_t)r.bodylen);
    return 1;
}

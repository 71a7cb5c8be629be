/* kv_binary.c — memcached's binary protocol: the core commands memslap --binary and libmemcached
 * use (get/getq/getk/getkq, set/add/replace and their quiet forms, delete, incr/decr, append/
 * prepend, touch/gat/gatq/gatk/gatkq, flush, noop, version, verbosity, stat, quit). Expiry times
 * in extras are unsigned 32-bit numbers, as memcached reads them (0xffffffff is a unix time in
 * 2106, not "expired"; text's negative times have no binary form).
 *
 * A packet is a 24-byte header (magic 0x80, opcode, key length, extras length, total body length,
 * an opaque word echoed back, a CAS id) and a body of extras, key and value. The whole packet is
 * buffered before it is executed; a packet whose body is larger than an item can be gets "Too
 * large" (storage commands) or "Invalid arguments" and its body is discarded. A bad magic byte
 * closes the connection (the stream cannot be resynchronized), and so does a packet whose
 * lengths do not fit its command (memcached does the same). Quiet commands answer only on
 * error (and quiet gets only on a hit). Status codes and messages are memcached's.
 * This file: framing, checks and dispatch; the commands themselves: kv_binary_cmds.c.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "kv_binary.h"

uint64_t kv_get64(const char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | (uint8_t)p[i];
    return v;
}

uint32_t kv_get32(const char *p) { return (uint32_t)(kv_get64(p) >> 32); }

void kv_put64(char *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (char)(v & 0xff);
}

void kv_resp(struct kv_conn *c, const struct kv_req *r, uint16_t status, uint64_t cas,
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

void kv_error(struct kv_conn *c, const struct kv_req *r, uint16_t status)
{
    const char *msg = status == ST_NOT_FOUND    ? "Not found"
                      : status == ST_EXISTS     ? "Data exists for key."
                      : status == ST_TOO_LARGE  ? "Too large."
                      : status == ST_INVALID    ? "Invalid arguments"
                      : status == ST_NOT_STORED ? "Not stored."
                      : status == ST_NON_NUMERIC ? "Non-numeric server-side value for incr or decr"
                      : status == ST_NO_MEMORY  ? "Out of memory"
                      : status == ST_AUTH_ERROR ? "Auth failure."
                                                : "Unknown command";
    kv_resp(c, r, status, 0, NULL, 0, NULL, 0, msg, strlen(msg));
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
    case OP_TOUCH: case OP_GAT: case OP_GATQ: case OP_GATK: case OP_GATKQ:
        return ext == 4 && key && !val;
    case OP_VERBOSITY:
        return ext == 4 && !key && !val;
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
    case OP_GATQ: case OP_GATK: case OP_GATKQ:
        kv_bin_get(c, r);
        break;
    case OP_SET: case OP_SETQ: case OP_ADD: case OP_ADDQ: case OP_REPLACE: case OP_REPLACEQ:
    case OP_APPEND: case OP_APPENDQ: case OP_PREPEND: case OP_PREPENDQ:
        kv_bin_store(c, r);
        break;
    case OP_DELETE: case OP_DELETEQ: {
        KV_DETAIL(r->key, r->keylen, KV_DETAIL_DEL, 0);
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
        if (!kv_settings.flush_enabled) { /* -F: memcached's answer */
            kv_error(c, r, ST_AUTH_ERROR);
            break;
        }
        kv_flush(r->extlen == 4 ? (int64_t)kv_get32(r->ext) : 0);
        kv_tstat_add(c->stats, KV_TS_cmd_flush, 1);
        if (r->opcode == OP_FLUSH)
            kv_resp(c, r, ST_OK, 0, NULL, 0, NULL, 0, NULL, 0);
        break;
    case OP_NOOP:
        kv_resp(c, r, ST_OK, 0, NULL, 0, NULL, 0, NULL, 0);
        break;
    case OP_VERBOSITY: {
        uint32_t level = kv_get32(r->ext);
        kv_set_verbose(level > 2 ? 2 : (int)level);
        kv_resp(c, r, ST_OK, 0, NULL, 0, NULL, 0, NULL, 0);
        break;
    }
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
        int store = r.opcode <= OP_REPLACE || r.opcode >= OP_APPEND;
        if (store)
            kv_tstat_add(c->stats, KV_TS_store_too_large, 1);
        kv_error(c, &r, store ? ST_TOO_LARGE : ST_INVALID);
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

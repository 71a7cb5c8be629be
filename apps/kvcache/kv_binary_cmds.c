/* kv_binary_cmds.c — the binary protocol's commands that reach the cache: get/getk/getq/getkq,
 * touch/gat/gatq/gatk/gatkq, the storage commands, incr/decr, stat.
 *
 * Each answers as memcached does: a miss is "Not found" (getk/gatk: the key, no message; quiet
 * forms: nothing); add on an existing key is "Data exists", replace on a missing one "Not found",
 * a CAS id in set/replace makes them compare-and-swap; incr/decr on a missing key create it with
 * the initial value unless the expiry is 0xffffffff; stat sends one packet per statistic and an
 * empty one to end ("detail on"/"detail off": only the empty one; "detail dump": the text dump
 * in one packet keyed "detailed").
 */
#include <arpa/inet.h>
#include <string.h>

#include "kv_binary.h"

int kv_quiet(uint8_t op)
{
    return op == OP_GETQ || op == OP_GETKQ || (op >= OP_SETQ && op <= OP_PREPENDQ) ||
           op == OP_GATQ || op == OP_GATKQ;
}

void kv_bin_get(struct kv_conn *c, const struct kv_req *r)
{
    uint8_t op = r->opcode;
    int touch = op == OP_TOUCH || op == OP_GAT || op == OP_GATQ || op == OP_GATK || op == OP_GATKQ;
    int with_key = op == OP_GETK || op == OP_GETKQ || op == OP_GATK || op == OP_GATKQ;
    int64_t exptime = touch ? kv_abs_exptime(kv_get32(r->ext), kv_now()) : 0;
    int dead = 0;
    kv_item *it = kv_get(r->key, r->keylen, touch, exptime, &dead);
    kv_tstat_add(c->stats, touch ? KV_TS_cmd_touch : KV_TS_cmd_get, 1);
    if (!touch)
        KV_DETAIL(r->key, r->keylen, KV_DETAIL_GET, it != NULL);
    if (!it) {
        kv_tstat_add(c->stats, touch ? KV_TS_touch_misses : KV_TS_get_misses, 1);
        if (dead && !touch)
            kv_tstat_add(c->stats, dead == KV_DEAD_EXPIRED ? KV_TS_get_expired
                                                           : KV_TS_get_flushed, 1);
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

void kv_bin_store(struct kv_conn *c, const struct kv_req *r)
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
    int64_t exptime = concat ? 0 : kv_abs_exptime(kv_get32(r->ext + 4), kv_now());
    int why;
    kv_tstat_add(c->stats, KV_TS_cmd_set, 1);
    KV_DETAIL(r->key, r->keylen, KV_DETAIL_SET, 0);
    kv_item *it = kv_alloc(r->key, r->keylen, flags, exptime, r->vallen, &why);
    if (!it) {
        kv_tstat_add(c->stats, why == KV_TOO_LARGE ? KV_TS_store_too_large
                                                   : KV_TS_store_no_memory, 1);
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

void kv_bin_delta(struct kv_conn *c, const struct kv_req *r)
{
    int incr = r->opcode == OP_INCR || r->opcode == OP_INCRQ;
    uint64_t delta = kv_get64(r->ext), initial = kv_get64(r->ext + 8), value = 0, cas = r->cas;
    uint32_t exp = kv_get32(r->ext + 16);
    int res = kv_delta(r->key, r->keylen, incr, delta, &value, &cas);
    if (res == KV_NOT_FOUND && exp != 0xffffffffu) {
        res = kv_delta_create(r->key, r->keylen, initial, kv_abs_exptime(exp, kv_now()),
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

void kv_bin_stat(struct kv_conn *c, const struct kv_req *r)
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
    /* detail on|off: just the terminator; detail dump: the text lines in one "detailed" packet */
    if (!strcmp(group, "detail on") || !strcmp(group, "detail off")) {
        kv_detail_enable(group[8] == 'n');
        kv_resp(c, r, ST_OK, 0, NULL, 0, NULL, 0, NULL, 0);
        return;
    }
    if (!strcmp(group, "detail dump")) {
        int n = kv_detail_dump(buf, sizeof buf);
        kv_resp(c, r, ST_OK, 0, NULL, 0, "detailed", 8, buf, (size_t)n);
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


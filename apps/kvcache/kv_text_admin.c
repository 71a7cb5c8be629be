/* kv_text_admin.c — the text protocol's administrative commands: `stats` with its groups
 * (general, items, slabs, settings, reset, detail on|off|dump, cachedump CLASS LIMIT), `slabs`
 * (automove 0 only: pages never move between classes), `flush_all` and `verbosity`.
 *
 * The replies are formatted by kv_stats.c and kv_items_stats.c; an unknown `stats` group answers
 * ERROR, as memcached does, and every malformed argument a CLIENT_ERROR naming the problem, so
 * that no client is left waiting for an END that never comes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_text.h"

/* stats cachedump CLASS LIMIT */
static void kv_cmd_cachedump(struct kv_conn *c, struct kv_line *l)
{
    uint64_t cls, limit;
    if (!kv_settings.dump_enabled) {
        kv_outs(c, "CLIENT_ERROR stats cachedump not allowed\r\n");
    } else if (l->n < 4) {
        kv_outs(c, "CLIENT_ERROR bad command line\r\n");
    } else if (!kv_parse_u64s(l->tok[2], &cls) || !kv_parse_u64s(l->tok[3], &limit) ||
               limit > INT32_MAX) {
        kv_outs(c, "CLIENT_ERROR bad command line format\r\n");
    } else if (cls < 1 || cls > (uint64_t)kv_slabs_nclasses()) {
        kv_outs(c, "CLIENT_ERROR Illegal slab id\r\n");
    } else {
        const size_t cap = 2u << 20; /* as memcached: at most 2 MB of lines */
        char *buf = malloc(cap);
        if (!buf) {
            kv_outs(c, "SERVER_ERROR out of memory writing stats\r\n");
            return;
        }
        int n = kv_items_cachedump((int)cls, (int)limit, buf, cap);
        kv_out(c, buf, (size_t)n);
        kv_outs(c, "END\r\n");
        free(buf);
    }
}

void kv_cmd_stats(struct kv_conn *c, struct kv_line *l)
{
    const char *what = l->n >= 2 ? l->tok[1] : "";
    if (l->n == 2 && !strcmp(what, "reset")) {
        kv_stats_reset();
        kv_outs(c, "RESET\r\n");
        return;
    }
    static __thread char *buf;
    const size_t cap = 64 * 1024;
    if (!buf && !(buf = malloc(cap)))
        abort();
    if (!strcmp(what, "detail")) { /* stats detail on|off|dump */
        const char *arg = l->n >= 3 ? l->tok[2] : "";
        if (!strcmp(arg, "on") || !strcmp(arg, "off")) {
            kv_detail_enable(arg[1] == 'n');
            kv_outs(c, "OK\r\n");
        } else if (!strcmp(arg, "dump")) {
            kv_out(c, buf, (size_t)kv_detail_dump(buf, cap));
        } else {
            kv_outs(c, "CLIENT_ERROR usage: stats detail on|off|dump\r\n");
        }
        return;
    }
    if (!strcmp(what, "cachedump")) {
        kv_cmd_cachedump(c, l);
        return;
    }
    int n = l->n > 2 ? -1 : kv_stats_report(what, buf, cap);
    if (n < 0) {
        kv_outs(c, "ERROR\r\n");
        return;
    }
    kv_out(c, buf, (size_t)n);
    kv_outs(c, "END\r\n");
}

/* slabs automove N: kvcache never moves pages between classes, so only 0 is accepted */
void kv_cmd_slabs(struct kv_conn *c, struct kv_line *l)
{
    uint64_t v;
    if (l->n >= 3 && !strcmp(l->tok[1], "automove")) {
        if (!kv_parse_u64s(l->tok[2], &v))
            kv_outs(c, "CLIENT_ERROR bad command line format\r\n");
        else if (v == 0)
            kv_outs(c, "OK\r\n");
        else
            kv_outs(c, "SERVER_ERROR slab page moving is not supported\r\n");
    } else if (l->n >= 2 && !strcmp(l->tok[1], "reassign")) {
        kv_outs(c, "SERVER_ERROR slab page moving is not supported\r\n");
    } else {
        kv_outs(c, "ERROR\r\n");
    }
}

/* flush_all [time] [noreply]: the time as kv_flush takes it (0 now, up to 30 days a delay, above
 * a unix time); refused under -F. */
void kv_cmd_flush_all(struct kv_conn *c, struct kv_line *l)
{
    int n = l->n;
    int64_t t;
    c->noreply = !strcmp(l->tok[n - 1], "noreply");
    int args = n - 1 - c->noreply;
    if (!kv_settings.flush_enabled) {
        kv_reply(c, "CLIENT_ERROR flush_all not allowed");
    } else if (args > 1) {
        kv_reply(c, "CLIENT_ERROR bad command line format");
    } else if (args == 1 && !kv_parse_i64s(l->tok[1], &t)) {
        kv_reply(c, "CLIENT_ERROR invalid exptime argument");
    } else {
        kv_flush(args == 1 ? t : 0);
        kv_tstat_add(c->stats, KV_TS_cmd_flush, 1);
        kv_reply(c, "OK");
    }
}

/* verbosity LEVEL [noreply]: 0, 1, 2 (more is 2); anything else is a format error */
void kv_cmd_verbosity(struct kv_conn *c, struct kv_line *l)
{
    uint64_t u;
    c->noreply = !strcmp(l->tok[l->n - 1], "noreply");
    if (kv_parse_u64s(l->tok[1], &u)) {
        kv_set_verbose(u > 2 ? 2 : (int)u);
        kv_reply(c, "OK");
    } else {
        kv_reply(c, "CLIENT_ERROR bad command line format");
    }
}

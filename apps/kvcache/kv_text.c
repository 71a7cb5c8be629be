/* kv_text.c — memcached's text protocol (doc/protocol.txt of memcached, in our own code).
 *
 * A command is one line ending in \n (a \r before it is dropped), split on spaces. Storage
 * commands announce a value of <bytes> bytes followed by \r\n; the value streams into the item
 * allocated for it (kv_text_value) and is stored once complete. Answers follow memcached's:
 * "ERROR" for an unknown command or a wrong number of arguments, "CLIENT_ERROR bad command line
 * format" for a malformed one (a key over 250 bytes, a number that does not parse), "CLIENT_ERROR
 * bad data chunk" when the value is not followed by \r\n, "SERVER_ERROR object too large for
 * cache" / "SERVER_ERROR out of memory storing object" (answered at once; the value is then read
 * and dropped). A get with any key over 250 bytes is refused whole, before anything is looked up.
 * A line of more than KV_LINE_MAX bytes (KV_GETLINE_MAX for get/gets) closes the connection, with
 * no answer, as memcached does, and so does an unknown command whose last word starts with
 * "HTTP/" (a web client on the cache's port). The storage commands and their values:
 * kv_text_store.c; stats, slabs, flush_all and verbosity: kv_text_admin.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_text.h"

#define KV_LINE_MAX 2048
#define KV_GETLINE_MAX (256 * 1024)

static void kv_tokenize(char *s, struct kv_line *l)
{
    l->n = 0;
    l->rest = NULL;
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        if (l->n == KV_TOKENS) {
            l->rest = s;
            break;
        }
        l->tok[l->n] = s;
        while (*s && *s != ' ')
            s++;
        l->len[l->n] = (size_t)(s - l->tok[l->n]);
        if (*s)
            *s++ = '\0';
        l->n++;
    }
}

int kv_parse_u64s(const char *s, uint64_t *v)
{
    char *end;
    if (*s < '0' || *s > '9')
        return 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (*end || (x == ~0ULL && strcmp(s, "18446744073709551615")))
        return 0;
    *v = x;
    return 1;
}

int kv_parse_i64s(const char *s, int64_t *v)
{
    char *end;
    if (!*s)
        return 0;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (*end || errno == ERANGE) /* out of range: strtoll would answer its limit */
        return 0;
    *v = x;
    return 1;
}

static void kv_value_out(struct kv_conn *c, kv_item *it, int with_cas)
{
    char head[KV_KEY_MAX + 96];
    int n = snprintf(head, sizeof head, "VALUE %.*s %u %u", it->nkey, KV_ITEM_KEY(it), it->flags,
                     it->nbytes);
    if (with_cas)
        n += snprintf(head + n, sizeof head - (size_t)n, " %llu", (unsigned long long)it->cas);
    head[n++] = '\r';
    head[n++] = '\n';
    kv_out(c, head, (size_t)n);
    kv_out(c, KV_ITEM_VALUE(it), it->nbytes);
    kv_out(c, "\r\n", 2);
}

/* The next key of a get: token i, then the words of l->rest; 0 at the end. */
static int kv_next_key(struct kv_line *l, int *i, char **rest, char **key, size_t *nkey)
{
    if (*i < l->n) {
        *key = l->tok[*i];
        *nkey = l->len[(*i)++];
        return 1;
    }
    char *r = *rest;
    while (r && *r == ' ')
        r++;
    if (!r || !*r)
        return 0;
    *key = r;
    while (*r && *r != ' ')
        r++;
    *nkey = (size_t)(r - *key);
    *rest = r;
    return 1;
}

/* get, gets, gat, gats: keys from token `first` on, then those in l->rest. A key over 250
 * bytes anywhere refuses the whole command before any key is looked up. */
static void kv_cmd_get(struct kv_conn *c, struct kv_line *l, int first, int with_cas, int touch,
                       int64_t exptime)
{
    char *rest = l->rest, *key;
    size_t nkey;
    int i = first;
    while (kv_next_key(l, &i, &rest, &key, &nkey)) {
        if (nkey > KV_KEY_MAX) {
            kv_outs(c, "CLIENT_ERROR bad command line format\r\n");
            return;
        }
    }
    rest = l->rest;
    i = first;
    while (kv_next_key(l, &i, &rest, &key, &nkey)) {
        int dead = 0;
        kv_item *it = kv_get(key, nkey, touch, exptime, &dead);
        kv_tstat_add(c->stats, KV_TS_cmd_get, 1);
        if (touch)
            kv_tstat_add(c->stats, KV_TS_cmd_touch, 1);
        KV_DETAIL(key, nkey, KV_DETAIL_GET, it != NULL);
        if (it) {
            kv_tstat_add(c->stats, touch ? KV_TS_touch_hits : KV_TS_get_hits, 1);
            kv_value_out(c, it, with_cas);
            kv_release(it);
        } else {
            kv_tstat_add(c->stats, touch ? KV_TS_touch_misses : KV_TS_get_misses, 1);
            if (dead)
                kv_tstat_add(c->stats, dead == KV_DEAD_EXPIRED ? KV_TS_get_expired
                                                               : KV_TS_get_flushed, 1);
        }
    }
    kv_outs(c, "END\r\n");
}

static void kv_cmd_delta(struct kv_conn *c, struct kv_line *l, int incr)
{
    uint64_t delta, value = 0, cas = 0;
    c->noreply = l->n == 4 && !strcmp(l->tok[3], "noreply");
    if (l->len[1] > KV_KEY_MAX) {
        kv_outs(c, "CLIENT_ERROR bad command line format\r\n");
        return;
    }
    if (!kv_parse_u64s(l->tok[2], &delta)) {
        kv_outs(c, "CLIENT_ERROR invalid numeric delta argument\r\n");
        return;
    }
    int res = kv_delta(l->tok[1], l->len[1], incr, delta, &value, &cas);
    enum kv_tstat_id hit = incr ? KV_TS_incr_hits : KV_TS_decr_hits;
    kv_tstat_add(c->stats, res == KV_NOT_FOUND ? hit - 1 : hit, 1);
    char buf[32];
    switch (res) {
    case KV_OK:
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)value);
        kv_reply(c, buf);
        break;
    case KV_NOT_FOUND: kv_reply(c, "NOT_FOUND"); break;
    case KV_NON_NUMERIC:
        kv_reply(c, "CLIENT_ERROR cannot increment or decrement non-numeric value");
        break;
    default: kv_reply(c, "SERVER_ERROR out of memory"); break;
    }
}

/* The commands with a fixed shape; returns 0 if `cmd` is none of them. */
static int kv_dispatch(struct kv_conn *c, struct kv_line *l)
{
    const char *cmd = l->tok[0];
    int n = l->n;
    int64_t t;
    if ((!strcmp(cmd, "get") || !strcmp(cmd, "gets")) && n >= 2) {
        kv_cmd_get(c, l, 1, cmd[3] == 's', 0, 0);
    } else if ((!strcmp(cmd, "gat") || !strcmp(cmd, "gats")) && n >= 2) { /* no key: END */
        if (!kv_parse_i64s(l->tok[1], &t))
            kv_outs(c, "CLIENT_ERROR invalid exptime argument\r\n");
        else
            kv_cmd_get(c, l, 2, cmd[3] == 's', 1, kv_abs_exptime(t, kv_now()));
    } else if (!strcmp(cmd, "set") && (n == 5 || n == 6)) {
        kv_cmd_store(c, l, KV_SET);
    } else if (!strcmp(cmd, "add") && (n == 5 || n == 6)) {
        kv_cmd_store(c, l, KV_ADD);
    } else if (!strcmp(cmd, "replace") && (n == 5 || n == 6)) {
        kv_cmd_store(c, l, KV_REPLACE);
    } else if (!strcmp(cmd, "append") && (n == 5 || n == 6)) {
        kv_cmd_store(c, l, KV_APPEND);
    } else if (!strcmp(cmd, "prepend") && (n == 5 || n == 6)) {
        kv_cmd_store(c, l, KV_PREPEND);
    } else if (!strcmp(cmd, "cas") && (n == 6 || n == 7)) {
        kv_cmd_store(c, l, KV_CAS);
    } else if ((!strcmp(cmd, "incr") || !strcmp(cmd, "decr")) && (n == 3 || n == 4)) {
        kv_cmd_delta(c, l, cmd[0] == 'i');
    } else if (!strcmp(cmd, "delete") && n >= 2 && n <= 4) {
        /* delete <key> [0] [noreply]: the old hold time is accepted only as 0; as in memcached,
         * a trailing noreply silences even the usage error */
        c->noreply = n >= 3 && !strcmp(l->tok[n - 1], "noreply");
        int zero = n >= 3 && !strcmp(l->tok[2], "0");
        if ((n == 3 && !zero && !c->noreply) || (n == 4 && !(zero && c->noreply))) {
            kv_reply(c, "CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]");
        } else if (l->len[1] > KV_KEY_MAX) {
            kv_reply(c, "CLIENT_ERROR bad command line format");
        } else {
            KV_DETAIL(l->tok[1], l->len[1], KV_DETAIL_DEL, 0);
            int res = kv_delete(l->tok[1], l->len[1]);
            kv_tstat_add(c->stats, res == KV_DELETED ? KV_TS_delete_hits : KV_TS_delete_misses, 1);
            kv_reply(c, res == KV_DELETED ? "DELETED" : "NOT_FOUND");
        }
    } else if (!strcmp(cmd, "touch") && (n == 3 || n == 4)) {
        c->noreply = n == 4 && !strcmp(l->tok[3], "noreply");
        if (l->len[1] > KV_KEY_MAX) {
            kv_outs(c, "CLIENT_ERROR bad command line format\r\n");
        } else if (!kv_parse_i64s(l->tok[2], &t)) {
            kv_outs(c, "CLIENT_ERROR invalid exptime argument\r\n");
        } else {
            int res = kv_touch(l->tok[1], l->len[1], kv_abs_exptime(t, kv_now()));
            kv_tstat_add(c->stats, KV_TS_cmd_touch, 1);
            kv_tstat_add(c->stats, res == KV_TOUCHED ? KV_TS_touch_hits : KV_TS_touch_misses, 1);
            kv_reply(c, res == KV_TOUCHED ? "TOUCHED" : "NOT_FOUND");
        }
    } else if (!strcmp(cmd, "flush_all") && n <= 3) {
        kv_cmd_flush_all(c, l);
    } else if (!strcmp(cmd, "stats")) {
        kv_cmd_stats(c, l);
    } else if (!strcmp(cmd, "slabs")) {
        kv_cmd_slabs(c, l);
    } else if (!strcmp(cmd, "version") && n == 1) {
        kv_outs(c, "VERSION " KV_VERSION "\r\n");
    } else if (!strcmp(cmd, "verbosity") && (n == 2 || n == 3)) {
        kv_cmd_verbosity(c, l);
    } else if (!strcmp(cmd, "quit") && n == 1) {
        c->closing = 1;
    } else {
        return 0;
    }
    return 1;
}

int kv_text_step(struct kv_conn *c)
{
    char *line = c->rbuf + c->rpos;
    char *nl = memchr(line, '\n', c->rlen);
    if (!nl) {
        int is_get = c->rlen >= 4 && (!strncmp(line, "get ", 4) || !strncmp(line, "gets", 4));
        if (c->rlen > (is_get ? KV_GETLINE_MAX : KV_LINE_MAX)) {
            c->closing = 1; /* memcached closes such a connection without a word */
            kv_consume(c, c->rlen);
        }
        return 0;
    }
    size_t used = (size_t)(nl - line) + 1;
    *nl = '\0';
    if (nl > line && nl[-1] == '\r')
        nl[-1] = '\0';
    struct kv_line l;
    kv_tokenize(line, &l);
    c->noreply = 0;
    if (l.n == 0 || !kv_dispatch(c, &l)) {
        const char *last = l.n ? l.tok[l.n - 1] : "";
        for (char *r = l.rest; r && *r;) { /* the last word, past the tokens */
            while (*r == ' ')
                r++;
            if (*r)
                last = r;
            while (*r && *r != ' ')
                r++;
        }
        if (l.n >= 1 && !strncmp(last, "HTTP/", 5)) {
            c->closing = 1; /* memcached hangs up on an HTTP request without a word */
            kv_consume(c, c->rlen);
            return 0;
        }
        kv_outs(c, "ERROR\r\n");
    }
    if (!c->item)
        c->noreply = 0;
    kv_consume(c, used);
    return 1;
}

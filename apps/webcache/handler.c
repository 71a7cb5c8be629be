/* handler.c — routing and the cache in front of the man backend (mod_mem_cache's role).
 *
 *   GET|HEAD /man/<section>/<name>   a man page (also /man/<section>+<name>, man2html's links)
 *   GET|HEAD /_stats                 counters as JSON (stats.c), never cached
 *   GET|HEAD / and /man              a short index page
 * Other methods: 405 (known ones) or 501. Paths are percent-decoded (a malformed escape is
 * 400), the query is ignored.
 *
 * A page request looks the canonical URL "/man/<section>/<name>" up in the cache; a hit is
 * served straight from the entry, whose reference is released by a cleanup registered on the
 * response (so it is held exactly while the body is being sent). A miss renders the page, and
 * if the backend's Cache-Control allows (no no-store/no-cache/private, max-age > 0) copies it
 * into a new entry, inserts it and serves that entry; otherwise serves and then frees the
 * rendered buffer. Rendering and copying happen outside the cache's critical sections.
 */
#include "handler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "man.h"
#include "stats.h"

static const char wc__index[] =
    "<!DOCTYPE html>\n<html><head><title>webcache</title></head><body>\n"
    "<h1>webcache</h1>\n<p>Man pages: <a href=\"/man/3/printf\">/man/3/printf</a>, "
    "/man/<i>section</i>/<i>name</i>. Counters: <a href=\"/_stats\">/_stats</a>.</p>\n"
    "</body></html>\n";

static void wc__free_cleanup(void *a, void *b) { (void)b; free(a); }
static void wc__release_cleanup(void *a, void *b) { wc_cache_release(a, b); }

/* Reads the backend's Cache-Control: the freshness in seconds, or 0 if it must not be cached. */
static unsigned wc__freshness(const char *cc)
{
    unsigned age = 0;
    const char *p = cc;
    while (*p) {
        size_t n = strcspn(p, ",");
        while (n && (*p == ' ' || *p == '\t'))
            p++, n--;
        if ((n == 8 && strncasecmp(p, "no-store", 8) == 0) ||
            (n == 8 && strncasecmp(p, "no-cache", 8) == 0) ||
            (n == 7 && strncasecmp(p, "private", 7) == 0))
            return 0;
        if (n > 8 && strncasecmp(p, "max-age=", 8) == 0)
            age = (unsigned)strtoul(p + 8, NULL, 10);
        p += n;
        if (*p == ',')
            p++;
    }
    return age;
}

static void wc__from_entry(struct wc_response *r, const struct wc_ctx *ctx, struct wc_entry *e,
                           const char *x_cache, const char *cache_control)
{
    r->status = 200;
    r->content_type = e->content_type;
    r->body = e->body;
    r->body_len = e->body_len;
    r->x_cache = x_cache;
    r->cache_control = cache_control;
    wc_response_on_cleanup(r, wc__release_cleanup, ctx->cache, e);
}

static void wc__page(const struct wc_ctx *ctx, const char *sec, const char *name,
                     struct wc_response *r)
{
    static __thread char cc[48];
    char key[sizeof "/man//" + 512];
    int klen = snprintf(key, sizeof key, "/man/%s/%s", sec, name);
    snprintf(cc, sizeof cc, "max-age=%u", ctx->cfg->max_age);
    if (wc_use_cache) {
        struct wc_entry *e = wc_cache_lookup(ctx->cache, key, (size_t)klen);
        if (e) {
            wc__from_entry(r, ctx, e, "HIT", cc);
            return;
        }
    } else {
        WC_STATS_INC(misses);
    }
    struct wc_page pg;
    wc_man_render(ctx->cfg, sec, name, &pg);
    WC_STATS_INC(renders);
    if (pg.status != 200) {
        wc_response_error(r, pg.status);
        return;
    }
    snprintf(cc, sizeof cc, "%s", pg.cache_control);
    unsigned fresh = wc__freshness(pg.cache_control);
    if (wc_use_cache && fresh > 0) {
        uint64_t expires = wc_cache_now(ctx->cache) + (uint64_t)fresh * 1000u;
        struct wc_entry *e = wc_entry_new(key, (size_t)klen, pg.content_type, pg.body, pg.len,
                                          expires, (double)pg.cost_us);
        if (e) {
            free(pg.body);
            wc_cache_insert(ctx->cache, e); /* inserted or not, we hold our reference */
            wc__from_entry(r, ctx, e, "MISS", cc);
            return;
        }
    }
    r->status = 200;
    r->body = pg.body;
    r->body_len = pg.len;
    r->x_cache = "MISS";
    r->cache_control = cc;
    static __thread char ctype[96];
    snprintf(ctype, sizeof ctype, "%s", pg.content_type);
    r->content_type = ctype;
    wc_response_on_cleanup(r, wc__free_cleanup, pg.body, NULL);
}

static void wc__stats(const struct wc_ctx *ctx, struct wc_response *r)
{
    size_t cap = wc_stats_json_cap();
    char *buf = malloc(cap);
    size_t n = buf ? wc_stats_json(buf, cap, ctx->cache, ctx->cfg) : 0;
    if (!n) {
        free(buf);
        wc_response_error(r, 500);
        return;
    }
    r->status = 200;
    r->content_type = "application/json";
    r->body = buf;
    r->body_len = n;
    r->cache_control = "no-store";
    wc_response_on_cleanup(r, wc__free_cleanup, buf, NULL);
}

void wc_handle(const struct wc_ctx *ctx, const struct wc_request *rq, struct wc_response *r)
{
    if (rq->method != WC_GET && rq->method != WC_HEAD) {
        wc_response_error(r, rq->method == WC_UNKNOWN ? 501 : 405);
        r->close = 0; /* the request was framed correctly: the connection can go on */
        return;
    }
    char path[512];
    int st = wc_http_decode_path(rq->target, rq->target_len, path, sizeof path);
    if (st) {
        wc_response_error(r, st);
        r->close = 0; /* a bad escape in a well-framed request */
        return;
    }
    if (strcmp(path, "/_stats") == 0) {
        wc__stats(ctx, r);
        return;
    }
    if (strcmp(path, "/") == 0 || strcmp(path, "/man") == 0 || strcmp(path, "/man/") == 0) {
        r->status = 200;
        r->content_type = "text/html; charset=UTF-8";
        r->body = wc__index;
        r->body_len = sizeof wc__index - 1;
        r->cache_control = "max-age=60";
        return;
    }
    if (strncmp(path, "/man/", 5) == 0) {
        char *sec = path + 5, *sep = sec + strcspn(sec, "/+");
        if (*sep) {
            *sep = '\0';
            if (wc_man_valid(sec, sep + 1)) {
                wc__page(ctx, sec, sep + 1, r);
                return;
            }
        }
    }
    wc_response_error(r, 404);
}

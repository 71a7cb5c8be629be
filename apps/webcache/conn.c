/* conn.c — the protocol steps on one connection: parse, read, answer, send, go on.
 *
 * Bytes are read into one buffer, allocated when a request's first bytes come and freed while
 * the connection is idle (2 KB, doubled as needed up to the request line + header limits +
 * 8 KB of room for a pipelined next request). The head parser keeps its place between reads;
 * the body, if any, is consumed as it arrives and discarded, after a "100 Continue" if the
 * client expects one. The worker holding the connection answers a complete request; an error
 * that leaves the byte stream unsynchronized (400, 408, 413, 414, 417, 431, 501 for an unknown
 * transfer coding, 505) is answered with "Connection: close", and the connection shut for
 * writing, its unread input then drained a moment (the client reads the answer, not a reset).
 * After a keep-alive response the request is dropped from the buffer, and the complete requests
 * pipelined after it are answered at once. Every send is non-blocking: what the socket does not
 * take is finished when it has room (io.c).
 */
#include "conn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "stats.h"

struct wc_conn *wc_conn_new(int fd, uint32_t addr, struct wc_io *io)
{
    struct wc_conn *c = calloc(1, sizeof *c);
    if (c) {
        c->fd = fd;
        c->addr = addr;
        c->io = io;
        c->list = -1;
    }
    return c;
}

void wc_conn_free(struct wc_conn *c)
{
    free(c->buf);
    free(c);
}

static size_t wc__cap(const struct wc_config *cfg)
{
    return cfg->max_request_line + cfg->max_header_bytes + 8192;
}

int wc_conn_parse(struct wc_conn *c, const struct wc_config *cfg)
{
    struct wc_limits lim = {cfg->max_request_line, cfg->max_header_bytes, cfg->max_body};
    if (c->phase == 0) {
        if (!c->len)
            return WC_PARSE_INCOMPLETE;
        int st = wc_http_parse(&c->ps, c->buf, c->len, &lim, &c->rq);
        if (st == WC_PARSE_INCOMPLETE)
            wc_http_drop_skipped(&c->ps, c->buf, &c->len);
        if (st != WC_PARSE_OK)
            return st;
        c->phase = 1;
        wc_http_body_init(&c->body, &c->rq);
        if ((c->rq.chunked || c->rq.content_length) && c->rq.expect_continue &&
            c->len == c->rq.head_len) {
            static const char line[] = WC_HTTP_CONTINUE;
            if (send(c->fd, line, sizeof line - 1, MSG_NOSIGNAL | MSG_DONTWAIT) !=
                (ssize_t)sizeof line - 1)
                return -1; /* nothing else is queued on the socket: it cannot be full */
        }
    }
    if (c->phase == 1) {
        if (c->rq.chunked || c->rq.content_length) {
            char *body = c->buf + c->rq.head_len;
            size_t used, have = c->len - c->rq.head_len;
            int st = wc_http_body(&c->body, body, have, &lim, &used);
            memmove(body, body + used, have - used);
            c->len -= used;
            if (st != WC_PARSE_OK)
                return st;
        }
        c->phase = 2;
    }
    return WC_PARSE_OK;
}

int wc_conn_input(struct wc_conn *c, const struct wc_config *cfg)
{
    size_t cap = wc__cap(cfg);
    for (;;) {
        int st = wc_conn_parse(c, cfg);
        if (st != WC_PARSE_INCOMPLETE)
            return st;
        if (c->len == cap)
            return 431; /* a head that cannot end within the limits (they are checked first) */
        if (c->len == c->size) {
            size_t size = c->size ? c->size * 2 : 2048;
            char *nb = realloc(c->buf, size < cap ? size : cap);
            if (!nb)
                return -1;
            c->buf = nb;
            c->size = size < cap ? size : cap;
        }
        size_t room = c->size - c->len;
        ssize_t k = read(c->fd, c->buf + c->len, room);
        if (k > 0) {
            c->len += (size_t)k;
            c->started = 1;
            c->more = (size_t)k == room;
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            c->more = 0;
            return WC_PARSE_INCOMPLETE;
        }
        return -1; /* EOF or an error: whatever was half-read is dropped */
    }
}

int wc_conn_send(struct wc_conn *c)
{
    while (c->iovcnt > 0) {
        struct msghdr m = {.msg_iov = c->iov, .msg_iovlen = (size_t)c->iovcnt};
        ssize_t k = sendmsg(c->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
        }
        while (c->iovcnt > 0 && (size_t)k >= c->iov[0].iov_len) {
            k -= (ssize_t)c->iov[0].iov_len;
            c->iov[0] = c->iov[1];
            c->iovcnt--;
        }
        if (c->iovcnt > 0) {
            c->iov[0].iov_base = (char *)c->iov[0].iov_base + k;
            c->iov[0].iov_len -= (size_t)k;
        }
    }
    return 1;
}

int wc_conn_sent(struct wc_conn *c, const struct wc_config *cfg)
{
    (void)cfg;
    wc_response_cleanup(&c->resp);
    c->responding = 0;
    c->served++;
    if (!c->keep) {
        shutdown(c->fd, SHUT_WR);
        return WC_NEED_LINGER;
    }
    size_t h = c->rq.head_len; /* the body is consumed already */
    memmove(c->buf, c->buf + h, c->len - h);
    c->len -= h;
    wc_http_parser_init(&c->ps);
    memset(&c->rq, 0, sizeof c->rq);
    c->phase = 0;
    c->started = c->len > 0;
    return WC_NEED_READ;
}

static void wc__log(const struct wc_conn *c)
{
    const struct wc_request *rq = &c->rq;
    const struct wc_response *r = &c->resp;
    fprintf(stderr, "webcache[%d]: %.*s -> %d %zu%s%s\n", (int)getpid(),
            c->parsed ? (int)(rq->target_len > 200 ? 200 : rq->target_len) : 1,
            c->parsed ? rq->target : "-", r->status, r->body_len, r->x_cache ? " " : "",
            r->x_cache ? r->x_cache : "");
}

/* Fills the response to the request (st WC_PARSE_OK) or to the error st, and its head. */
static int wc__answer(struct wc_conn *c, const struct wc_ctx *ctx, int st)
{
    const struct wc_config *cfg = ctx->cfg;
    memset(&c->resp, 0, offsetof(struct wc_response, page));
    c->parsed = st == WC_PARSE_OK;
    c->keep = c->head_only = 0;
    WC_STATS_INC(requests); /* before answering, so /_stats counts itself */
    if (!c->parsed) {
        wc_response_error(&c->resp, st);
    } else {
        wc_handle(ctx, &c->rq, &c->resp);
        c->head_only = c->rq.method == WC_HEAD;
        /* read after the handler: a shutdown that began while it ran (a page render takes
         * milliseconds, man2html up to --request-timeout) closes the connection after this */
        int stopping = ctx->stopping && __atomic_load_n(ctx->stopping, __ATOMIC_ACQUIRE);
        c->keep = c->rq.keep_alive && !c->resp.close && !stopping &&
                  (cfg->max_keepalive_requests == 0 || c->served + 1 < cfg->max_keepalive_requests);
    }
    size_t hl = wc_http_format_head(&c->resp, c->keep, c->head, sizeof c->head);
    if (cfg->verbose)
        wc__log(c);
    if (!hl) {
        wc_response_cleanup(&c->resp);
        return -1;
    }
    c->iov[0] = (struct iovec){c->head, hl};
    c->iov[1] = (struct iovec){(void *)c->resp.body, c->resp.body_len};
    c->iovcnt = c->head_only || c->resp.body_len == 0 ? 1 : 2;
    c->responding = 1;
    return 0;
}

/* After a response went out: the next step, or -1 with *st the next pipelined request's
 * parse result, to be answered here. */
static int wc__go_on(struct wc_conn *c, const struct wc_config *cfg, int worker, int *st)
{
    int next = wc_conn_sent(c, cfg);
    if (next != WC_NEED_READ || !c->len)
        return next;
    *st = wc_conn_parse(c, cfg);
    if (*st == WC_PARSE_INCOMPLETE)
        return WC_NEED_READ;
    if (*st < 0)
        return WC_NEED_CLOSE;
    if (*st == WC_PARSE_OK && !worker)
        return WC_NEED_WORKER;
    return -1;
}

static int wc__reply(struct wc_conn *c, const struct wc_ctx *ctx, int st, int worker)
{
    for (;;) {
        if (wc__answer(c, ctx, st) != 0)
            return WC_NEED_CLOSE;
        int k = wc_conn_send(c);
        if (k < 0) {
            wc_response_cleanup(&c->resp);
            c->responding = 0;
            return WC_NEED_CLOSE;
        }
        if (k == 0)
            return WC_NEED_SEND;
        int next = wc__go_on(c, ctx->cfg, worker, &st);
        if (next >= 0)
            return next;
    }
}

int wc_conn_reply(struct wc_conn *c, const struct wc_ctx *ctx, int st)
{
    return wc__reply(c, ctx, st, st == WC_PARSE_OK);
}

int wc_conn_work(struct wc_conn *c, const struct wc_ctx *ctx)
{
    if (c->fd < 0) { /* closed with a response unfinished */
        wc_response_cleanup(&c->resp);
        c->responding = 0;
        return WC_NEED_CLOSE;
    }
    if (!c->responding)
        return wc__reply(c, ctx, WC_PARSE_OK, 1);
    int st = WC_PARSE_OK, next = wc__go_on(c, ctx->cfg, 1, &st); /* sent it all, later */
    return next >= 0 ? next : wc__reply(c, ctx, st, 1);
}

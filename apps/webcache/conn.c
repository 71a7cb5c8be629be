/* conn.c — one connection's life: read, parse, answer, repeat (keep-alive and pipelining).
 *
 * Bytes are read into one buffer (request line + headers limits + room for a pipelined next
 * request); the head parser keeps its place between reads; after each answer the consumed
 * bytes are dropped and the rest parsed, so pipelined requests are answered in order without
 * another read. Timeouts: a request must
 * arrive completely within --request-timeout from its first byte (else 408, close); between
 * requests an idle connection is closed after --keepalive-timeout (for the first request the
 * wait is --request-timeout). Request bodies (Content-Length or chunked) are read and
 * discarded, after a "100 Continue" if the client expects one; a body that stops short gets 408
 * at the request's deadline. Errors that leave the byte stream unsynchronized (400, 408, 413,
 * 414, 417, 431, 501 for an unknown transfer coding, 505) are answered with "Connection: close" and then the connection is
 * closed gracefully: shut down for writing, unread input drained for a moment, so the client
 * reads the answer instead of a reset. Shutdown (wake_fd readable) ends idle waits at once.
 */
#include "conn.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "stats.h"

static uint64_t wc__ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* 1: fd readable, 0: timeout, -1: shutdown requested. */
static int wc__wait(int fd, int wake_fd, uint64_t deadline)
{
    for (;;) {
        uint64_t now = wc__ms();
        if (now >= deadline)
            return 0;
        struct pollfd pf[2] = {{.fd = fd, .events = POLLIN}, {.fd = wake_fd, .events = POLLIN}};
        int k = poll(pf, 2, (int)(deadline - now));
        if (k < 0 && errno != EINTR)
            return -1;
        if (k > 0 && pf[1].revents)
            return -1;
        if (k > 0 && pf[0].revents)
            return 1;
    }
}

/* Graceful close: our answer is out; let the peer see EOF, swallow what it still sends. */
static void wc__close(int fd)
{
    shutdown(fd, SHUT_WR);
    char sink[4096];
    uint64_t end = wc__ms() + 1000;
    size_t total = 0;
    while (total < (4u << 20)) {
        uint64_t now = wc__ms();
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        if (now >= end || poll(&pf, 1, (int)(end - now)) <= 0)
            break;
        ssize_t k = read(fd, sink, sizeof sink);
        if (k <= 0 && !(k < 0 && (errno == EINTR || errno == EAGAIN)))
            break;
        if (k > 0)
            total += (size_t)k;
    }
    close(fd);
}

static void wc__log(const struct wc_request *rq, int parsed, const struct wc_response *r)
{
    fprintf(stderr, "webcache[%d]: %.*s -> %d %zu%s%s\n", (int)getpid(),
            parsed ? (int)(rq->target_len > 200 ? 200 : rq->target_len) : 1,
            parsed ? rq->target : "-", r->status, r->body_len, r->x_cache ? " " : "",
            r->x_cache ? r->x_cache : "");
}

struct wc__conn {
    const struct wc_ctx *ctx;
    struct wc_limits lim;
    int fd, wake_fd;
    char *buf;
    size_t cap, len;
    uint64_t deadline; /* of the request being received, or of the idle wait */
};

/* Waits for more bytes and appends them to the buffer: 1 read some, 0 the deadline passed,
 * -1 the peer closed, an error, or shutdown. */
static int wc__read_more(struct wc__conn *c)
{
    for (;;) {
        int w = wc__wait(c->fd, c->wake_fd, c->deadline);
        if (w <= 0)
            return w;
        ssize_t k = read(c->fd, c->buf + c->len, c->cap - c->len);
        if (k > 0) {
            c->len += (size_t)k;
            return 1;
        }
        if (k == 0 || (errno != EINTR && errno != EAGAIN))
            return -1;
    }
}

/* Reads until the head of the request at the start of the buffer is complete. Returns
 * WC_PARSE_OK, an error status to answer, or -1 to close quietly (peer gone, shutdown, or an
 * idle connection timed out). */
static int wc__read_head(struct wc__conn *c, struct wc_request *rq, int first)
{
    struct wc_parser ps;
    wc_http_parser_init(&ps);
    memset(rq, 0, sizeof *rq);
    int skipped = 0; /* empty lines came first: the request's clock is already running */
    for (;;) {
        int st = wc_http_parse(&ps, c->buf, c->len, &c->lim, rq);
        if (st != WC_PARSE_INCOMPLETE)
            return st;
        size_t had = c->len;
        wc_http_drop_skipped(&ps, c->buf, &c->len);
        skipped |= c->len < had;
        if (c->len == c->cap)
            return 431;
        size_t before = c->len;
        int w = wc__read_more(c);
        if (w < 0 || (w == 0 && c->len == 0 && !skipped))
            return -1;
        if (w == 0)
            return 408;
        if (before == 0 && !first && !skipped) /* a new request starts: its own clock */
            c->deadline = wc__ms() + c->ctx->cfg->request_timeout_ms;
    }
}

/* Reads and discards the body of rq (answering Expect: 100-continue first); what follows it
 * is moved to just after the head. Returns WC_PARSE_OK, an error status to answer (400, 408,
 * 413, 431), or -1 to close quietly. */
static int wc__read_body(struct wc__conn *c, const struct wc_request *rq)
{
    if (!rq->chunked && rq->content_length == 0)
        return WC_PARSE_OK;
    if (rq->expect_continue && c->len == rq->head_len &&
        wc_http_write_continue(c->fd, (int)c->ctx->cfg->request_timeout_ms) != 0)
        return -1;
    struct wc_body b;
    wc_http_body_init(&b, rq);
    char *body = c->buf + rq->head_len;
    for (;;) {
        size_t used, have = c->len - rq->head_len;
        int st = wc_http_body(&b, body, have, &c->lim, &used);
        memmove(body, body + used, have - used);
        c->len -= used;
        if (st != WC_PARSE_INCOMPLETE)
            return st;
        int w = wc__read_more(c);
        if (w < 0)
            return -1;
        if (w == 0)
            return 408;
    }
}

void wc_conn_serve(const struct wc_ctx *ctx, int fd, int wake_fd)
{
    const struct wc_config *cfg = ctx->cfg;
    struct wc__conn c = {
        .ctx = ctx, .lim = {cfg->max_request_line, cfg->max_header_bytes, cfg->max_body},
        .fd = fd, .wake_fd = wake_fd,
        .cap = cfg->max_request_line + cfg->max_header_bytes + 8192,
        .deadline = wc__ms() + cfg->request_timeout_ms};
    c.buf = malloc(c.cap);
    int first = 1, graceful = 0;
    unsigned served = 0; /* requests answered on this connection */
    while (c.buf) {
        struct wc_request rq;
        int st = wc__read_head(&c, &rq, first);
        if (st == WC_PARSE_OK)
            st = wc__read_body(&c, &rq);
        if (st < 0)
            break;
        struct wc_response r;
        memset(&r, 0, sizeof r);
        int parsed = st == WC_PARSE_OK, keep = 0, head_only = 0;
        WC_STATS_INC(requests); /* before answering, so /_stats counts itself */
        if (!parsed) {
            wc_response_error(&r, st);
        } else {
            wc_handle(ctx, &rq, &r);
            head_only = rq.method == WC_HEAD;
            /* Like Apache's MaxKeepAliveRequests: a worker owns its connection until it closes,
             * so a limit lets clients waiting in the accept queue take turns. */
            keep = rq.keep_alive && !r.close &&
                   (cfg->max_keepalive_requests == 0 || ++served < cfg->max_keepalive_requests);
        }
        int wrote = wc_http_write(fd, &r, head_only, keep, (int)cfg->request_timeout_ms);
        if (cfg->verbose)
            wc__log(&rq, parsed, &r);
        wc_response_cleanup(&r);
        if (wrote != 0)
            break;
        if (!keep) {
            graceful = 1;
            break;
        }
        memmove(c.buf, c.buf + rq.head_len, c.len - rq.head_len); /* the body is gone already */
        c.len -= rq.head_len;
        first = 0;
        c.deadline = wc__ms() + (c.len ? cfg->request_timeout_ms : cfg->keepalive_ms);
    }
    free(c.buf);
    if (graceful)
        wc__close(fd);
    else
        close(fd);
}

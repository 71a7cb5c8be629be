/* conn.c — one connection's life: read, parse, answer, repeat (keep-alive and pipelining).
 *
 * Bytes are read into one buffer (request line + headers limits + room for a pipelined next
 * request); after each answer the consumed bytes are dropped and the rest parsed again, so
 * pipelined requests are answered in order without another read. Timeouts: a request must
 * arrive completely within --request-timeout from its first byte (else 408, close); between
 * requests an idle connection is closed after --keepalive-timeout (for the first request the
 * wait is --request-timeout). Request bodies (GET/HEAD with Content-Length) are read and
 * discarded. Errors that leave the byte stream unsynchronized (400, 408, 413, 414, 431, 501
 * for Transfer-Encoding, 505) are answered with "Connection: close" and then the connection is
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

void wc_conn_serve(const struct wc_ctx *ctx, int fd, int wake_fd)
{
    const struct wc_config *cfg = ctx->cfg;
    const struct wc_limits lim = {cfg->max_request_line, cfg->max_header_bytes, cfg->max_body};
    size_t cap = cfg->max_request_line + cfg->max_header_bytes + 8192, len = 0;
    char *buf = malloc(cap);
    int first = 1, graceful = 0;
    unsigned served = 0; /* requests answered on this connection */
    uint64_t deadline = wc__ms() + cfg->request_timeout_ms;
    while (buf) {
        struct wc_request rq;
        int st = wc_http_parse(buf, len, &lim, &rq);
        if (st == WC_PARSE_INCOMPLETE) {
            if (len == cap) {
                st = 431;
            } else {
                int w = wc__wait(fd, wake_fd, deadline);
                if (w < 0 || (w == 0 && len == 0))
                    break; /* shutdown, or an idle connection timed out: close quietly */
                if (w == 0) {
                    st = 408;
                } else {
                    ssize_t k = read(fd, buf + len, cap - len);
                    if (k == 0 || (k < 0 && errno != EINTR && errno != EAGAIN))
                        break;
                    if (k > 0 && len == 0 && !first) /* a new request starts: its own clock */
                        deadline = wc__ms() + cfg->request_timeout_ms;
                    if (k > 0)
                        len += (size_t)k;
                    continue;
                }
            }
        }
        struct wc_response r;
        memset(&r, 0, sizeof r);
        int parsed = st == WC_PARSE_OK, keep = 0, head_only = 0;
        size_t used = len;
        WC_STATS_INC(requests); /* before answering, so /_stats counts itself */
        if (!parsed) {
            wc_response_error(&r, st);
        } else {
            uint64_t body = rq.content_length, have = len - rq.head_len;
            uint64_t in_buf = body < have ? body : have, left = body - in_buf;
            used = rq.head_len + (size_t)in_buf;
            char sink[4096]; /* the rest of the body is discarded (buf still holds rq) */
            while (left > 0) {
                ssize_t k = wc__wait(fd, wake_fd, deadline) <= 0 ? 0 :
                            read(fd, sink, left < sizeof sink ? (size_t)left : sizeof sink);
                if (k == 0 || (k < 0 && errno != EINTR && errno != EAGAIN))
                    break;
                if (k > 0)
                    left -= (uint64_t)k;
            }
            if (left > 0)
                break; /* the body did not arrive: nothing sensible to answer */
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
        memmove(buf, buf + used, len - used);
        len -= used;
        first = 0;
        deadline = wc__ms() + (len ? cfg->request_timeout_ms : cfg->keepalive_ms);
    }
    free(buf);
    if (graceful)
        wc__close(fd);
    else
        close(fd);
}

/* wl_http: HTTP/1.1 GET over one keep-alive connection (see wl_http.h). */
#include "wl_http.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define BUF_SIZE 65536        /* also the largest accepted header block or chunk-size line */
#define POLL_MS 50
#define WL_STALE (-1)         /* internal: reused connection closed before any byte came */

void wl_conn_init(wl_conn *c)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
}

void wl_conn_close(wl_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->reused = 0;
    c->start = c->end = 0;
}

void wl_conn_free(wl_conn *c)
{
    wl_conn_close(c);
    free(c->buf);
    c->buf = NULL;
}

static int do_connect(wl_conn *c, const wl_target *t)
{
    int fd = socket(t->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (const struct sockaddr *)&t->addr, t->addrlen) != 0) {
        close(fd);
        return -1;
    }
    c->fd = fd;
    c->reused = 0;
    c->start = c->end = 0;
    return 0;
}

/* Reads more bytes into the buffer. *eof is set when the peer closed. */
static enum wl_err fill(wl_conn *c, uint64_t deadline, const atomic_int *abandon, int *eof)
{
    if (c->start > 0) {
        memmove(c->buf, c->buf + c->start, c->end - c->start);
        c->end -= c->start;
        c->start = 0;
    }
    if (c->end == c->cap)
        return WL_ERR_PARSE;   /* a header block or line larger than the buffer */
    for (;;) {
        if (abandon && atomic_load_explicit(abandon, memory_order_relaxed))
            return WL_ERR_ABANDONED;
        if (wl_now_ns() >= deadline)
            return WL_ERR_TIMEOUT;
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        int rc = poll(&p, 1, POLL_MS);
        if (rc < 0 && errno != EINTR)
            return WL_ERR_IO;
        if (rc <= 0)
            continue;
        ssize_t n = recv(c->fd, c->buf + c->end, c->cap - c->end, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            return WL_ERR_IO;
        *eof = n == 0;
        c->end += (size_t)n;
        c->received += (uint64_t)n;
        return WL_OK;
    }
}

/* Finds "\r\n" from the buffer's start; *len is the line's length without it. Header lines
 * are short, so rescanning from the start after each read costs nothing that matters. */
static enum wl_err need_line(wl_conn *c, uint64_t dl, const atomic_int *ab, size_t *len)
{
    for (;;) {
        for (size_t i = c->start; i + 1 < c->end; i++)
            if (c->buf[i] == '\r' && c->buf[i + 1] == '\n') {
                *len = i - c->start;
                return WL_OK;
            }
        int eof = 0;
        enum wl_err e = fill(c, dl, ab, &eof);
        if (e != WL_OK)
            return e;
        if (eof)
            return WL_ERR_IO;
    }
}

/* Discards n body bytes (n = SIZE_MAX: until the peer closes). */
static enum wl_err skip(wl_conn *c, uint64_t n, uint64_t dl, const atomic_int *ab)
{
    int until_close = n == UINT64_MAX;
    for (;;) {
        uint64_t have = c->end - c->start;
        uint64_t take = have < n ? have : n;
        c->start += (size_t)take;
        n -= take;
        if (n == 0)
            return WL_OK;
        c->start = c->end = 0;
        int eof = 0;
        enum wl_err e = fill(c, dl, ab, &eof);
        if (e != WL_OK)
            return e;
        if (eof)
            return until_close ? WL_OK : WL_ERR_IO;
    }
}

static int header_is(const char *line, size_t len, const char *name, const char **value)
{
    size_t nl = strlen(name);
    if (len <= nl || strncasecmp(line, name, nl) != 0 || line[nl] != ':')
        return 0;
    const char *v = line + nl + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    *value = v;
    return 1;
}

static int has_token(const char *v, size_t len, const char *tok)
{
    size_t tl = strlen(tok);
    for (size_t i = 0; i + tl <= len; i++)
        if (strncasecmp(v + i, tok, tl) == 0)
            return 1;
    return 0;
}

static enum wl_err read_response(wl_conn *c, uint64_t dl, const atomic_int *ab, int *status,
                                 int *keep_alive)
{
    size_t len;
    /* Status line; a reused connection that the server had closed gives EOF first. */
    if (c->end == c->start) {
        int eof = 0;
        enum wl_err e = fill(c, dl, ab, &eof);
        if (e != WL_OK)
            return e;
        if (eof)
            return c->reused ? WL_STALE : WL_ERR_IO;
    }
    enum wl_err e = need_line(c, dl, ab, &len);
    if (e != WL_OK)
        return e;
    const char *l = c->buf + c->start;
    if (len < 12 || strncmp(l, "HTTP/1.", 7) != 0 || l[8] != ' ' ||
        strspn(l + 9, "0123456789") < 3)
        return WL_ERR_PARSE;
    int minor = l[7] - '0';
    *status = (l[9] - '0') * 100 + (l[10] - '0') * 10 + (l[11] - '0');
    *keep_alive = minor >= 1;
    c->start += len + 2;

    uint64_t content_length = UINT64_MAX;
    int chunked = 0;
    for (;;) {
        if ((e = need_line(c, dl, ab, &len)) != WL_OK)
            return e;
        l = c->buf + c->start;
        const char *v;
        if (len == 0) {
            c->start += 2;
            break;
        }
        if (header_is(l, len, "Content-Length", &v)) {
            char *end;
            content_length = strtoull(v, &end, 10);
            if (end == v)
                return WL_ERR_PARSE;
        } else if (header_is(l, len, "Transfer-Encoding", &v)) {
            chunked = has_token(v, len - (size_t)(v - l), "chunked");
        } else if (header_is(l, len, "Connection", &v)) {
            if (has_token(v, len - (size_t)(v - l), "close"))
                *keep_alive = 0;
            else if (has_token(v, len - (size_t)(v - l), "keep-alive"))
                *keep_alive = 1;
        }
        c->start += len + 2;
    }
    if (*status == 204 || *status == 304 || (*status >= 100 && *status < 200))
        return WL_OK;
    if (chunked) {
        for (;;) {
            if ((e = need_line(c, dl, ab, &len)) != WL_OK)
                return e;
            char *end;
            uint64_t size = strtoull(c->buf + c->start, &end, 16);
            if (end == c->buf + c->start)
                return WL_ERR_PARSE;
            c->start += len + 2;
            if (size == 0)
                break;
            if ((e = skip(c, size, dl, ab)) != WL_OK)
                return e;
            if ((e = need_line(c, dl, ab, &len)) != WL_OK)   /* the CRLF after the data */
                return e;
            c->start += len + 2;
        }
        for (;;) {   /* trailers up to the empty line */
            if ((e = need_line(c, dl, ab, &len)) != WL_OK)
                return e;
            c->start += len + 2;
            if (len == 0)
                return WL_OK;
        }
    }
    if (content_length != UINT64_MAX)
        return skip(c, content_length, dl, ab);
    *keep_alive = 0;   /* framed by the end of the connection */
    return skip(c, UINT64_MAX, dl, ab);
}

static enum wl_err send_all(wl_conn *c, const char *req, size_t len)
{
    while (len > 0) {
        ssize_t n = send(c->fd, req, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return WL_ERR_IO;
        req += n;
        len -= (size_t)n;
    }
    return WL_OK;
}

enum wl_err wl_conn_get(wl_conn *c, const wl_target *t, const char *req, size_t len,
                        uint64_t deadline_ns, const atomic_int *abandon, wl_response *out)
{
    if (!c->buf) {
        c->buf = malloc(BUF_SIZE);
        if (!c->buf)
            return WL_ERR_IO;
        c->cap = BUF_SIZE;
    }
    for (int attempt = 0; attempt < 2; attempt++) {
        if (c->fd < 0 && do_connect(c, t) != 0)
            return WL_ERR_CONNECT;
        c->start = c->end = 0;
        uint64_t before = c->received;
        enum wl_err e = send_all(c, req, len);
        int keep_alive = 0;
        if (e == WL_OK) {
            e = read_response(c, deadline_ns, abandon, &out->status, &keep_alive);
            out->bytes = c->received - before;
        } else if (c->reused) {
            e = WL_STALE;   /* the server closed an idle keep-alive connection */
        }
        if ((int)e == WL_STALE) {
            wl_conn_close(c);
            continue;       /* retry once on a fresh connection */
        }
        if (e != WL_OK) {
            wl_conn_close(c);
            return e;
        }
        c->reused = 1;
        if (!keep_alive)
            wl_conn_close(c);
        return WL_OK;
    }
    return WL_ERR_IO;
}

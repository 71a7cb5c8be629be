/* http.c — a strict HTTP/1.1 request-head parser and the response writer.
 *
 * The parser works on the bytes received so far and either asks for more or decides. It accepts
 * CRLF or bare LF line ends; rejects obsolete line folding, control characters, bad tokens and
 * conflicting or malformed Content-Length (400); a request line over max_request_line is 414,
 * a header section over max_header_bytes is 431 (both decided as soon as the limit is passed,
 * without waiting for the end); Content-Length over max_body is 413; Transfer-Encoding is 501
 * (this server takes no request bodies it would have to decode); HTTP/2+ or 0.x is 505; HTTP/1.1
 * needs exactly one Host. Keep-alive: HTTP/1.1 unless "Connection: close", HTTP/1.0 only with
 * "Connection: keep-alive".
 */
#include "http.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

static int wc__tchar(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Finds the end of the line starting at p; returns the index after '\n', or 0 if none yet. */
static size_t wc__line_end(const char *p, size_t avail, size_t *content_len)
{
    const char *nl = memchr(p, '\n', avail);
    if (!nl)
        return 0;
    size_t n = (size_t)(nl - p);
    *content_len = n > 0 && p[n - 1] == '\r' ? n - 1 : n;
    return n + 1;
}

/* The first `delim` in [p, p+n) if a non-empty token (RFC 9110 tchars) comes before it, else
 * NULL: the method of a request line, the name of a header field. */
static const char *wc__token_to(const char *p, size_t n, char delim)
{
    const char *d = memchr(p, delim, n);
    if (!d || d == p)
        return NULL;
    for (const char *q = p; q < d; q++)
        if (!wc__tchar((unsigned char)*q))
            return NULL;
    return d;
}

static enum wc_method wc__method(const char *m, size_t n)
{
    static const char *const known[] = {"POST", "PUT", "DELETE", "OPTIONS", "PATCH",
                                        "TRACE", "CONNECT"};
    if (n == 3 && memcmp(m, "GET", 3) == 0)
        return WC_GET;
    if (n == 4 && memcmp(m, "HEAD", 4) == 0)
        return WC_HEAD;
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (strlen(known[i]) == n && memcmp(m, known[i], n) == 0)
            return WC_OTHER_KNOWN;
    return WC_UNKNOWN;
}

static int wc__request_line(const char *p, size_t n, struct wc_request *rq)
{
    const char *sp1 = wc__token_to(p, n, ' ');
    if (!sp1)
        return 400;
    rq->method = wc__method(p, (size_t)(sp1 - p));
    const char *t = sp1 + 1, *end = p + n;
    const char *sp2 = memchr(t, ' ', (size_t)(end - t));
    if (!sp2 || sp2 == t || *t != '/')
        return 400;
    for (const char *q = t; q < sp2; q++)
        if ((unsigned char)*q <= 0x20 || (unsigned char)*q >= 0x7f)
            return 400;
    rq->target = t;
    rq->target_len = (size_t)(sp2 - t);
    const char *v = sp2 + 1;
    if (end - v != 8 || memcmp(v, "HTTP/", 5) != 0 || v[6] != '.' || v[5] < '0' ||
        v[5] > '9' || v[7] < '0' || v[7] > '9')
        return 400;
    if (v[5] != '1')
        return 505;
    rq->minor = v[7] - '0';
    return 0;
}

/* Case-insensitive: does the comma-separated list v[0..n) contain token tok? */
static int wc__has_token(const char *v, size_t n, const char *tok)
{
    size_t tl = strlen(tok), i = 0;
    while (i < n) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        size_t s = i;
        while (i < n && v[i] != ',')
            i++;
        size_t e = i;
        while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
            e--;
        if (e - s == tl && strncasecmp(v + s, tok, tl) == 0)
            return 1;
    }
    return 0;
}

int wc_http_parse(const char *buf, size_t len, const struct wc_limits *lim,
                  struct wc_request *rq)
{
    memset(rq, 0, sizeof *rq);
    size_t n, adv = wc__line_end(buf, len, &n);
    if (!adv)
        return len > lim->max_request_line ? 414 : WC_PARSE_INCOMPLETE;
    if (n > lim->max_request_line)
        return 414;
    int st = wc__request_line(buf, n, rq);
    if (st)
        return st;
    size_t pos = adv, hosts = 0;
    int have_cl = 0, conn_close = 0, conn_keep = 0, te = 0;
    for (;;) {
        if (pos - adv > lim->max_header_bytes)
            return 431;
        const char *p = buf + pos;
        size_t step = wc__line_end(p, len - pos, &n);
        if (!step)
            return len - adv > lim->max_header_bytes ? 431 : WC_PARSE_INCOMPLETE;
        pos += step;
        if (n == 0)
            break;
        if (p[0] == ' ' || p[0] == '\t')
            return 400; /* obsolete line folding */
        const char *colon = wc__token_to(p, n, ':');
        if (!colon)
            return 400;
        size_t nl = (size_t)(colon - p);
        const char *v = colon + 1, *ve = p + n;
        for (const char *q = v; q < ve; q++)
            if (((unsigned char)*q < 0x20 && *q != '\t') || *q == 0x7f)
                return 400;
        while (v < ve && (*v == ' ' || *v == '\t'))
            v++;
        while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
            ve--;
        size_t vl = (size_t)(ve - v);
        if (nl == 4 && strncasecmp(p, "Host", 4) == 0) {
            hosts++;
        } else if (nl == 10 && strncasecmp(p, "Connection", 10) == 0) {
            conn_close |= wc__has_token(v, vl, "close");
            conn_keep |= wc__has_token(v, vl, "keep-alive");
        } else if (nl == 17 && strncasecmp(p, "Transfer-Encoding", 17) == 0) {
            te = 1;
        } else if (nl == 14 && strncasecmp(p, "Content-Length", 14) == 0) {
            uint64_t cl = 0;
            if (vl == 0 || vl > 18)
                return 400;
            for (size_t i = 0; i < vl; i++) {
                if (v[i] < '0' || v[i] > '9')
                    return 400;
                cl = cl * 10 + (uint64_t)(v[i] - '0');
            }
            if (have_cl && cl != rq->content_length)
                return 400;
            have_cl = 1;
            rq->content_length = cl;
        }
    }
    if (rq->minor >= 1 && hosts != 1)
        return 400;
    if (te)
        return 501;
    if (rq->content_length > lim->max_body)
        return 413;
    rq->keep_alive = rq->minor >= 1 ? !conn_close : (conn_keep && !conn_close);
    rq->head_len = pos;
    return WC_PARSE_OK;
}

/* ---- responses ---- */

const char *wc_http_reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
    }
}

void wc_response_on_cleanup(struct wc_response *r, wc_cleanup_fn fn, void *a, void *b)
{
    if (r->ncleanups >= WC_MAX_CLEANUPS) { /* a programming error: run it now, late is worse */
        fn(a, b);
        return;
    }
    r->cleanups[r->ncleanups].fn = fn;
    r->cleanups[r->ncleanups].a = a;
    r->cleanups[r->ncleanups].b = b;
    r->ncleanups++;
}

void wc_response_cleanup(struct wc_response *r)
{
    while (r->ncleanups > 0) {
        r->ncleanups--;
        r->cleanups[r->ncleanups].fn(r->cleanups[r->ncleanups].a, r->cleanups[r->ncleanups].b);
    }
}

void wc_response_error(struct wc_response *r, int status)
{
    static __thread char page[160];
    int n = snprintf(page, sizeof page, "<html><head><title>%d %s</title></head><body><h1>%d %s"
                     "</h1></body></html>\n", status, wc_http_reason(status), status,
                     wc_http_reason(status));
    r->status = status;
    r->content_type = "text/html; charset=UTF-8";
    r->body = page;
    r->body_len = (size_t)n;
    r->cache_control = "no-store";
    r->x_cache = NULL;
    r->allow = status == 405 ? "GET, HEAD" : NULL;
    r->close = status == 400 || status == 408 || status == 413 || status == 414 ||
               status == 431 || status == 501 || status == 505;
}

static int wc__send_all(int fd, struct iovec *iov, int cnt, int timeout_ms)
{
    while (cnt > 0) {
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t)cnt};
        ssize_t k = sendmsg(fd, &m, MSG_NOSIGNAL);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                return -1;
            struct pollfd pf = {.fd = fd, .events = POLLOUT};
            if (poll(&pf, 1, timeout_ms) <= 0)
                return -1;
            continue;
        }
        while (cnt > 0 && (size_t)k >= iov->iov_len) {
            k -= (ssize_t)iov->iov_len;
            iov++, cnt--;
        }
        if (cnt > 0) {
            iov->iov_base = (char *)iov->iov_base + k;
            iov->iov_len -= (size_t)k;
        }
    }
    return 0;
}

int wc_http_write(int fd, const struct wc_response *r, int head_only, int keep_alive,
                  int timeout_ms)
{
    char date[64], head[1024];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %d %s\r\nDate: %s\r\nServer: webcache\r\n"
                     "Content-Type: %s\r\nContent-Length: %zu\r\n%s%s%s%s%s%s%s%s%s"
                     "Connection: %s\r\n\r\n",
                     r->status, wc_http_reason(r->status), date, r->content_type, r->body_len,
                     r->cache_control ? "Cache-Control: " : "",
                     r->cache_control ? r->cache_control : "", r->cache_control ? "\r\n" : "",
                     r->x_cache ? "X-Cache: " : "", r->x_cache ? r->x_cache : "",
                     r->x_cache ? "\r\n" : "", r->allow ? "Allow: " : "",
                     r->allow ? r->allow : "", r->allow ? "\r\n" : "",
                     keep_alive ? "keep-alive" : "close");
    if (n < 0 || (size_t)n >= sizeof head)
        return -1;
    struct iovec iov[2] = {{head, (size_t)n}, {(void *)r->body, r->body_len}};
    return wc__send_all(fd, iov, head_only || r->body_len == 0 ? 1 : 2, timeout_ms);
}

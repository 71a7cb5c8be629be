/* http.c — a strict HTTP/1.1 request-head parser (the target and Host: http_target.c;
 * bodies: http_body.c; responses: response.c).
 *
 * The head parser is incremental: it keeps its place (struct wc_parser) and looks at each byte
 * once however the head is split across reads. It accepts CRLF or bare LF line ends and skips
 * empty lines before the request line; the target in origin-form or absolute-form (any method),
 * asterisk-form (OPTIONS) or authority-form (CONNECT), never with '#'; rejects obsolete line
 * folding, control characters, bad tokens, an invalid or missing Host (HTTP/1.1) and conflicting
 * or malformed Content-Length (400). Limits are exact, whatever the segmentation: a request line
 * (without its line end) over max_request_line is 414, a header section (field lines with their
 * line ends) over max_header_bytes is 431, both decided as soon as the limit is passed.
 * Content-Length over max_body is 413; Transfer-Encoding must be exactly "chunked" (another
 * coding: 501; chunked not last, with Content-Length, or in HTTP/1.0: 400); an Expect other than
 * 100-continue is 417; HTTP/2+ or 0.x is 505. Keep-alive: HTTP/1.1 unless "Connection: close",
 * HTTP/1.0 only with "Connection: keep-alive".
 */
#include "http.h"

#include <string.h>
#include <strings.h>

static int wc__tchar(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
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
    static const char *const known[] = {"POST", "PUT", "DELETE", "PATCH", "TRACE"};
    if (n == 3 && memcmp(m, "GET", 3) == 0)
        return WC_GET;
    if (n == 4 && memcmp(m, "HEAD", 4) == 0)
        return WC_HEAD;
    if (n == 7 && memcmp(m, "OPTIONS", 7) == 0)
        return WC_OPTIONS;
    if (n == 7 && memcmp(m, "CONNECT", 7) == 0)
        return WC_CONNECT;
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
    if (!sp2 || sp2 == t || wc_http_target(t, (size_t)(sp2 - t), rq) != 0)
        return 400;
    const char *v = sp2 + 1;
    if (end - v != 8 || memcmp(v, "HTTP/", 5) != 0 || v[6] != '.' || v[5] < '0' ||
        v[5] > '9' || v[7] < '0' || v[7] > '9')
        return 400;
    if (v[5] != '1')
        return 505;
    rq->minor = v[7] - '0';
    return 0;
}

/* Calls fn on each element of the comma-separated list v[0..n) (trimmed, empty ones skipped). */
static void wc__each_token(const char *v, size_t n, void (*fn)(struct wc_parser *, const char *,
                                                                 size_t),
                           struct wc_parser *ps)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        size_t s = i;
        while (i < n && v[i] != ',')
            i++;
        size_t e = i;
        while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
            e--;
        if (e > s)
            fn(ps, v + s, e - s);
    }
}

static int wc__is(const char *v, size_t n, const char *tok)
{
    return strlen(tok) == n && strncasecmp(v, tok, n) == 0;
}

static void wc__connection_token(struct wc_parser *ps, const char *v, size_t n)
{
    ps->conn_close |= wc__is(v, n, "close");
    ps->conn_keep |= wc__is(v, n, "keep-alive");
}

/* Transfer codings in order: chunked must be the last, and only once (RFC 9112 6.1). */
static void wc__coding_token(struct wc_parser *ps, const char *v, size_t n)
{
    if (ps->te_chunked)
        ps->te_bad = 1; /* anything after chunked */
    if (wc__is(v, n, "chunked"))
        ps->te_chunked = 1;
    else
        ps->te_unknown = 1;
}

static void wc__expect_token(struct wc_parser *ps, const char *v, size_t n)
{
    if (wc__is(v, n, "100-continue"))
        ps->expect_continue = 1;
    else
        ps->expect_other = 1;
}

static int wc__content_length(const char *v, size_t vl, struct wc_parser *ps,
                              struct wc_request *rq)
{
    uint64_t cl = 0;
    if (vl == 0 || vl > 18)
        return 400;
    for (size_t i = 0; i < vl; i++) {
        if (v[i] < '0' || v[i] > '9')
            return 400;
        cl = cl * 10 + (uint64_t)(v[i] - '0');
    }
    if (ps->have_cl && cl != rq->content_length)
        return 400;
    ps->have_cl = 1;
    rq->content_length = cl;
    return 0;
}

/* One header field line p[0..n) (without its line end): 0, or 400. */
static int wc__field(const char *p, size_t n, struct wc_parser *ps, struct wc_request *rq)
{
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
    if (wc__is(p, nl, "Host")) {
        ps->hosts++;
        return wc_http_valid_host(v, vl) ? 0 : 400;
    }
    if (wc__is(p, nl, "Connection"))
        wc__each_token(v, vl, wc__connection_token, ps);
    else if (wc__is(p, nl, "Transfer-Encoding"))
        ps->te = 1, wc__each_token(v, vl, wc__coding_token, ps);
    else if (wc__is(p, nl, "Expect"))
        wc__each_token(v, vl, wc__expect_token, ps);
    else if (wc__is(p, nl, "Content-Length"))
        return wc__content_length(v, vl, ps, rq);
    return 0;
}

/* The head is complete: the checks that need all of it. */
static int wc__head_done(struct wc_parser *ps, const struct wc_limits *lim,
                         struct wc_request *rq, size_t head_len)
{
    if (rq->minor >= 1 && ps->hosts != 1)
        return 400;
    if (ps->te) { /* RFC 9112 6.1 and 6.3: no Content-Length with it, not in HTTP/1.0 */
        if (ps->have_cl || rq->minor == 0 || ps->te_bad ||
            (!ps->te_chunked && !ps->te_unknown))
            return 400;
        if (ps->te_unknown)
            return 501;
        rq->chunked = 1;
    }
    if (rq->content_length > lim->max_body)
        return 413;
    if (rq->minor >= 1 && ps->expect_other)
        return 417;
    rq->expect_continue = rq->minor >= 1 && ps->expect_continue;
    rq->keep_alive = rq->minor >= 1 ? !ps->conn_close : (ps->conn_keep && !ps->conn_close);
    rq->head_len = head_len;
    return WC_PARSE_OK;
}

void wc_http_parser_init(struct wc_parser *ps)
{
    memset(ps, 0, sizeof *ps);
}

/* The limit checks on a line not complete yet, buf[ps->line..len): the same verdict the
 * complete line will get, whatever its remaining bytes (a trailing CR may be its line end). */
static int wc__partial(const struct wc_parser *ps, const char *buf, size_t len,
                       const struct wc_limits *lim)
{
    size_t have = len - ps->line;
    if (have > 0 && buf[len - 1] == '\r')
        have--;
    if (!ps->in_headers)
        return have > lim->max_request_line ? 414 : WC_PARSE_INCOMPLETE;
    /* a field line is counted with its line end, so a "\r" alone is not counted: it is the
     * start of the empty line that ends the section */
    size_t part = len - ps->line == 1 && have == 0 ? 0 : len - ps->line;
    return ps->header_bytes + part > lim->max_header_bytes ? 431 : WC_PARSE_INCOMPLETE;
}

int wc_http_parse(struct wc_parser *ps, const char *buf, size_t len,
                  const struct wc_limits *lim, struct wc_request *rq)
{
    if (ps->line == 0 && !ps->in_headers && ps->scan == 0)
        memset(rq, 0, sizeof *rq);
    for (;;) {
        const char *nl = memchr(buf + ps->scan, '\n', len - ps->scan);
        if (!nl) {
            ps->scan = len;
            return wc__partial(ps, buf, len, lim);
        }
        const char *p = buf + ps->line;
        size_t step = (size_t)(nl - p) + 1, n = step - 1;
        if (n > 0 && p[n - 1] == '\r')
            n--;
        ps->line += step;
        ps->scan = ps->line;
        if (!ps->in_headers) {
            if (n == 0)
                continue; /* an empty line before the request line (RFC 9112 2.2) */
            if (n > lim->max_request_line)
                return 414;
            int st = wc__request_line(p, n, rq);
            if (st)
                return st;
            /* the target as an offset: the caller may move buf before the head is complete */
            ps->target_off = rq->target >= p && rq->target < p + n ? (size_t)(rq->target - buf)
                                                                   : (size_t)-1;
            ps->in_headers = 1;
            continue;
        }
        if (n == 0) {
            if (ps->target_off != (size_t)-1)
                rq->target = buf + ps->target_off;
            return wc__head_done(ps, lim, rq, ps->line);
        }
        ps->header_bytes += step;
        if (ps->header_bytes > lim->max_header_bytes)
            return 431;
        int st = wc__field(p, n, ps, rq);
        if (st)
            return st;
    }
}

void wc_http_drop_skipped(struct wc_parser *ps, char *buf, size_t *len)
{
    if (ps->in_headers || ps->line == 0)
        return;
    memmove(buf, buf + ps->line, *len - ps->line);
    *len -= ps->line;
    ps->scan -= ps->line;
    ps->line = 0;
}

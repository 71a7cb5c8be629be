/* http.h — HTTP/1.1 request heads (http.c), request bodies (http_body.c), responses and the
 * per-request cleanup list, like an Apache request pool's cleanups: run once the response is
 * written (response.c).
 */
#ifndef WC_HTTP_H
#define WC_HTTP_H

#include <stddef.h>
#include <stdint.h>

enum { WC_PARSE_INCOMPLETE = 0, WC_PARSE_OK = 1 }; /* other results are HTTP error statuses */
enum wc_method { WC_GET, WC_HEAD, WC_OPTIONS, WC_CONNECT, WC_OTHER_KNOWN, WC_UNKNOWN };

struct wc_limits {
    size_t max_request_line; /* longer request line (without its line end): 414 */
    size_t max_header_bytes; /* larger header section (its field lines with their line ends,
                                not the empty line that ends it): 431 */
    size_t max_body;         /* larger Content-Length, or chunks adding up to more: 413 */
};

struct wc_request {
    enum wc_method method;
    const char *target;     /* the path and query (origin-form, or taken out of the absolute
                               form); points into the connection buffer, not NUL-terminated
                               (valid once the head is complete: the buffer may move before) */
    size_t target_len;
    int minor;              /* HTTP/1.minor */
    int keep_alive;         /* after this request, by version and Connection */
    int chunked;            /* Transfer-Encoding: chunked (then content_length is 0) */
    int expect_continue;    /* HTTP/1.1 and Expect: 100-continue */
    uint64_t content_length;
    size_t head_len;        /* bytes of request line + headers + blank line */
};

/* Where the parse of one request head stands between reads: each call looks at the bytes
 * that arrived since the last one only, so a head that trickles in costs linear time. */
struct wc_parser {
    size_t line;            /* offset of the first line not parsed yet */
    size_t scan;            /* offset up to which that line has been searched for its '\n' */
    size_t header_bytes;    /* header section so far (complete field lines) */
    int in_headers;         /* 0: the request line is next */
    unsigned hosts;
    int have_cl, conn_close, conn_keep, te, te_chunked, te_bad, te_unknown;
    int expect_continue, expect_other;
    size_t target_off;      /* where rq->target starts in buf; (size_t)-1: not in buf ("/") */
};

void wc_http_parser_init(struct wc_parser *ps);

/* Parses the request head in buf[0..len), len growing between calls with the same ps and rq
 * (buf may move, the bytes already seen must not change). Returns WC_PARSE_INCOMPLETE (read
 * more), WC_PARSE_OK (rq filled; the body, if any, follows head_len bytes in) or an error
 * status: 400, 413, 414, 417, 431, 501 (a transfer coding other than chunked), 505. A method
 * other than GET/HEAD is not an error here: the caller answers 405 or 501 from rq->method,
 * keeping the connection. Empty lines before the request line are skipped. */
int wc_http_parse(struct wc_parser *ps, const char *buf, size_t len,
                  const struct wc_limits *lim, struct wc_request *rq);

/* After WC_PARSE_INCOMPLETE: drops the empty lines skipped before the request line from the
 * front of buf (so a stream of them cannot fill the buffer). */
void wc_http_drop_skipped(struct wc_parser *ps, char *buf, size_t *len);

/* A request body being read and discarded: Content-Length bytes, or chunked (RFC 9112 7.1:
 * chunk sizes in hex, extensions ignored, trailer fields read and ignored; CRLF line ends). */
struct wc_body {
    int chunked, state;
    uint64_t left;          /* bytes of the body (Content-Length) or of this chunk's data */
    uint64_t size, total;   /* chunk size being read; chunk data so far */
    size_t line_bytes;      /* bytes of the chunk extensions, or of the trailer section */
};

void wc_http_body_init(struct wc_body *b, const struct wc_request *rq);

/* Consumes body bytes from p[0..n): sets *used and returns WC_PARSE_INCOMPLETE (all n used,
 * more to come), WC_PARSE_OK (the body ended after *used bytes) or an error status (400 bad
 * chunk framing, 413 over max_body, 431 trailer section over max_header_bytes). */
int wc_http_body(struct wc_body *b, const char *p, size_t n, const struct wc_limits *lim,
                 size_t *used);

/* http_target.c: is h[0..n) a valid uri-host [":" port] (empty is valid)? 1 or 0. */
int wc_http_valid_host(const char *h, size_t n);
/* http_target.c: checks the request-target t[0..n) of a request whose method is in rq and
 * sets rq->target (the path and query; "/" for an absolute-form without a path). 0, or 400. */
int wc_http_target(const char *t, size_t n, struct wc_request *rq);

/* Percent-decodes the path of a target (up to '?') into out (NUL-terminated). Returns 0, 400
 * for a malformed escape ('%' not followed by two hex digits), or 404 for a path that cannot
 * name anything (longer than size - 1, or an encoded NUL). */
int wc_http_decode_path(const char *t, size_t n, char *out, size_t size);

/* ---- responses (response.c) ---- */

typedef void (*wc_cleanup_fn)(void *arg1, void *arg2);
#define WC_MAX_CLEANUPS 4

struct wc_response {
    int status;
    const char *content_type;
    const char *body;
    size_t body_len;
    const char *cache_control; /* NULL: header omitted */
    const char *x_cache;       /* "HIT", "MISS" or NULL */
    const char *allow;         /* Allow header (405) or NULL */
    int close;                 /* force Connection: close */
    struct {
        wc_cleanup_fn fn;
        void *a, *b;
    } cleanups[WC_MAX_CLEANUPS];
    int ncleanups;
    char page[160];            /* an error page's body (wc_response_error) */
};

const char *wc_http_reason(int status);
/* Registers fn(a, b) to run after the response is written (reverse order). */
void wc_response_on_cleanup(struct wc_response *r, wc_cleanup_fn fn, void *a, void *b);
void wc_response_cleanup(struct wc_response *r);
/* Fills r with a short HTML error page for status (in r->page). */
void wc_response_error(struct wc_response *r, int status);

/* Formats the status line and headers of r (with "Connection: keep-alive" or "close") into
 * buf. Returns their length, or 0 if they do not fit. Copies every string r points to, so the
 * head stays valid when the response travels to another thread. */
size_t wc_http_format_head(const struct wc_response *r, int keep_alive, char *buf, size_t size);

/* The interim response to Expect: 100-continue (RFC 9110 15.2.1). */
#define WC_HTTP_CONTINUE "HTTP/1.1 100 Continue\r\n\r\n"

/* A descriptor that becomes readable when the server gives up on work in flight (the shutdown
 * deadline, server.c); the man2html pipe loop watches it. -1: none. */
extern int wc_http_abort_fd;

/* The value of a hex digit, or -1. */
static inline int wc_http_hex(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

#endif

/* http.h — HTTP/1.1 request parsing and response writing (http.c), and the per-request
 * cleanup list (like an Apache request pool's cleanups: run once the response is written).
 */
#ifndef WC_HTTP_H
#define WC_HTTP_H

#include <stddef.h>
#include <stdint.h>

enum { WC_PARSE_INCOMPLETE = 0, WC_PARSE_OK = 1 }; /* other results are HTTP error statuses */
enum wc_method { WC_GET, WC_HEAD, WC_OTHER_KNOWN, WC_UNKNOWN };

struct wc_limits {
    size_t max_request_line; /* longer request line: 414 */
    size_t max_header_bytes; /* longer header section (after the request line): 431 */
    size_t max_body;         /* larger Content-Length: 413 */
};

struct wc_request {
    enum wc_method method;
    const char *target;     /* points into the connection buffer, not NUL-terminated */
    size_t target_len;
    int minor;              /* HTTP/1.minor */
    int keep_alive;         /* after this request, by version and Connection */
    uint64_t content_length;
    size_t head_len;        /* bytes of request line + headers + blank line */
};

/* Parses the request at buf[0..len). Returns WC_PARSE_INCOMPLETE (read more), WC_PARSE_OK
 * (rq filled; the body, if any, follows head_len bytes in) or an error status: 400, 413, 414,
 * 431, 501 (Transfer-Encoding), 505. A method other than GET/HEAD is not an error here: the
 * caller answers 405 or 501 from rq->method, keeping the connection. */
int wc_http_parse(const char *buf, size_t len, const struct wc_limits *lim,
                  struct wc_request *rq);

/* ---- responses ---- */

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
};

const char *wc_http_reason(int status);
/* Registers fn(a, b) to run after the response is written (reverse order). */
void wc_response_on_cleanup(struct wc_response *r, wc_cleanup_fn fn, void *a, void *b);
void wc_response_cleanup(struct wc_response *r);
/* Fills r with a short HTML error page for status (static storage). */
void wc_response_error(struct wc_response *r, int status);

/* Writes the status line, headers and (unless head_only) body to the non-blocking socket fd,
 * waiting at most timeout_ms for the peer to accept data. Returns 0, or -1 on error/timeout. */
int wc_http_write(int fd, const struct wc_response *r, int head_only, int keep_alive,
                  int timeout_ms);

#endif

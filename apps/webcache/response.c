/* response.c — what a response is made of: reason phrases, the cleanup list run once it is
 * written, error pages, and the status line and headers. Sending is the connection's job
 * (conn.c): a response may be finished by another worker than the one that started it.
 */
#include "http.h"

#include <stdio.h>
#include <time.h>

const char *wc_http_reason(int status)
{
    switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 417: return "Expectation Failed";
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
    int n = snprintf(r->page, sizeof r->page, "<html><head><title>%d %s</title></head><body>"
                     "<h1>%d %s</h1></body></html>\n", status, wc_http_reason(status), status,
                     wc_http_reason(status));
    r->status = status;
    r->content_type = "text/html; charset=UTF-8";
    r->body = r->page;
    r->body_len = (size_t)n;
    r->cache_control = "no-store";
    r->x_cache = NULL;
    r->allow = status == 405 ? "GET, HEAD" : NULL;
    r->close = status == 400 || status == 408 || status == 413 || status == 414 ||
               status == 417 || status == 431 || status == 501 || status == 503 || status == 505;
}

int wc_http_abort_fd = -1;

size_t wc_http_format_head(const struct wc_response *r, int keep_alive, char *buf, size_t size)
{
    static __thread time_t last;
    static __thread char date[64];
    time_t now = time(NULL);
    if (now != last) { /* one Date per second and thread */
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
        last = now;
    }
    int n = snprintf(buf, size,
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
    return n < 0 || (size_t)n >= size ? 0 : (size_t)n;
}

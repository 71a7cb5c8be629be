/* http_target.c — the request-target and Host (RFC 9112 3.2, RFC 9110 7.2, RFC 3986): its four
 * forms, the uri-host [":" port] grammar, and the percent-decoding of the path, every read
 * bounded by the length given (the buffers are not NUL-terminated).
 */
#include "http.h"

#include <string.h>
#include <strings.h>

/* RFC 3986 reg-name characters: unreserved and sub-delims ('%' escapes checked apart). */
static int wc__regname_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c && strchr("-._~!$&'()*+,;=", c));
}

/* Is h[0..n) a valid uri-host [ ":" port ] (RFC 9110 7.2, RFC 3986 3.2.2)? Empty is valid. */
int wc_http_valid_host(const char *h, size_t n)
{
    size_t i = 0;
    if (n > 0 && h[0] == '[') { /* IP-literal: IPv6 or IPvFuture, checked loosely */
        for (i = 1; i < n && h[i] != ']'; i++)
            if (!(wc_http_hex((unsigned char)h[i]) >= 0 || h[i] == ':' || h[i] == '.' ||
                  h[i] == 'v' || h[i] == 'V' || wc__regname_char((unsigned char)h[i])))
                return 0;
        if (i == n || i == 1)
            return 0;
        i++;
    } else {
        for (; i < n && h[i] != ':'; i++) {
            if (h[i] == '%') {
                if (n - i < 3 || wc_http_hex((unsigned char)h[i + 1]) < 0 ||
                    wc_http_hex((unsigned char)h[i + 2]) < 0)
                    return 0;
                i += 2;
            } else if (!wc__regname_char((unsigned char)h[i])) {
                return 0;
            }
        }
    }
    if (i < n && h[i++] != ':')
        return 0;
    for (; i < n; i++) /* port = *DIGIT */
        if (h[i] < '0' || h[i] > '9')
            return 0;
    return 1;
}

/* absolute-form (RFC 9112 3.2.2): "http" or "https" "://" authority, then the path and query
 * that become rq->target ("/" when the path is empty). 0, or 400. */
static int wc__absolute_form(const char *t, size_t n, struct wc_request *rq)
{
    size_t s = n >= 7 && strncasecmp(t, "http://", 7) == 0    ? 7
               : n >= 8 && strncasecmp(t, "https://", 8) == 0 ? 8
                                                              : 0;
    if (!s)
        return 400;
    size_t a = s;
    while (a < n && t[a] != '/' && t[a] != '?')
        a++;
    if (a == s || !wc_http_valid_host(t + s, a - s))
        return 400;
    if (a == n || t[a] == '?') {
        rq->target = "/";
        rq->target_len = 1;
    } else {
        rq->target = t + a;
        rq->target_len = n - a;
    }
    return 0;
}

/* The request-target (RFC 9112 3.2): origin-form for every method, absolute-form too,
 * asterisk-form for OPTIONS only, authority-form for CONNECT only. 0, or 400. */
int wc_http_target(const char *t, size_t n, struct wc_request *rq)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)t[i] <= 0x20 || (unsigned char)t[i] >= 0x7f || t[i] == '#')
            return 400;
    rq->target = t;
    rq->target_len = n;
    if (t[0] == '/')
        return 0;
    if (n == 1 && t[0] == '*')
        return rq->method == WC_OPTIONS ? 0 : 400;
    if (rq->method == WC_CONNECT)
        return memchr(t, ':', n) && wc_http_valid_host(t, n) ? 0 : 400;
    return wc__absolute_form(t, n, rq);
}

int wc_http_decode_path(const char *t, size_t n, char *out, size_t size)
{
    size_t o = 0;
    for (size_t i = 0; i < n && t[i] != '?'; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c == '%') {
            int hi = i + 1 < n ? wc_http_hex((unsigned char)t[i + 1]) : -1;
            int lo = i + 2 < n ? wc_http_hex((unsigned char)t[i + 2]) : -1;
            if (hi < 0 || lo < 0)
                return 400;
            c = (unsigned char)(hi * 16 + lo);
            i += 2;
            if (c == 0)
                return 404;
        }
        if (o + 1 >= size)
            return 404;
        out[o++] = (char)c;
    }
    out[o] = '\0';
    return 0;
}

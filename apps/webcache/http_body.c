/* http_body.c — request bodies, read and discarded: Content-Length bytes, or chunked
 * (RFC 9112 7.1) with strict CRLF framing, chunk extensions and trailer fields ignored, the sum
 * of the chunks bounded by max_body. A state machine over the bytes as they arrive, so a body
 * may be split anywhere.
 */
#include "http.h"

#include <string.h>

enum { /* where a chunked body stands */
    B_SIZE0,     /* the first hex digit of a chunk size */
    B_SIZE,      /* more hex digits, ';' or BWS (extensions), or CR */
    B_EXT,       /* chunk extensions, ignored up to CR */
    B_SIZE_LF,   /* LF after the size line */
    B_DATA,      /* chunk data: b->left bytes */
    B_DATA_CR,   /* CR, LF after the data */
    B_DATA_LF,
    B_TRAILER0,  /* the start of a trailer field line, or CR of the final empty line */
    B_TRAILER,   /* in a trailer field line, up to CR */
    B_TRAILER_LF,
    B_END_LF,    /* LF of the final empty line */
};
#define WC_MAX_CHUNK_EXT 4096

void wc_http_body_init(struct wc_body *b, const struct wc_request *rq)
{
    memset(b, 0, sizeof *b);
    b->chunked = rq->chunked;
    b->left = rq->content_length;
}

static int wc__ctl(unsigned char c)
{
    return (c < 0x20 && c != '\t') || c == 0x7f;
}

/* One byte of chunked framing (not data) in state b->state: 0 to go on, WC_PARSE_OK at the
 * end of the body, or an error status. */
static int wc__chunk_byte(struct wc_body *b, unsigned char c, const struct wc_limits *lim)
{
    int h = wc_http_hex(c);
    switch (b->state) {
    case B_SIZE0:
    case B_SIZE:
        if (h >= 0) {
            b->size = b->size * 16 + (uint64_t)h;
            if (b->size > lim->max_body || b->total + b->size > lim->max_body)
                return 413;
            b->state = B_SIZE;
            return 0;
        }
        if (b->state == B_SIZE0)
            return 400;
        if (c == '\r')
            return b->state = B_SIZE_LF, 0;
        if (c == ';' || c == ' ' || c == '\t')
            return b->state = B_EXT, 0;
        return 400;
    case B_EXT:
        if (c == '\r')
            return b->state = B_SIZE_LF, 0;
        return wc__ctl(c) || ++b->line_bytes > WC_MAX_CHUNK_EXT ? 400 : 0;
    case B_SIZE_LF:
        if (c != '\n')
            return 400;
        b->line_bytes = 0;
        b->total += b->size;
        b->left = b->size;
        b->state = b->size ? B_DATA : B_TRAILER0;
        return 0;
    case B_DATA_CR:
        return c == '\r' ? (b->state = B_DATA_LF, 0) : 400;
    case B_DATA_LF:
        if (c != '\n')
            return 400;
        b->size = 0;
        b->state = B_SIZE0;
        return 0;
    case B_TRAILER0:
        if (c == '\r')
            return b->state = B_END_LF, 0;
        b->state = B_TRAILER;
        /* fall through */
    case B_TRAILER:
        if (++b->line_bytes > lim->max_header_bytes)
            return 431;
        if (c == '\r')
            return b->state = B_TRAILER_LF, 0;
        return wc__ctl(c) ? 400 : 0;
    case B_TRAILER_LF:
        if (c != '\n')
            return 400;
        b->line_bytes++;
        b->state = B_TRAILER0;
        return 0;
    case B_END_LF:
        return c == '\n' ? WC_PARSE_OK : 400;
    }
    return 400;
}

int wc_http_body(struct wc_body *b, const char *p, size_t n, const struct wc_limits *lim,
                 size_t *used)
{
    size_t i = 0;
    if (!b->chunked) {
        i = b->left < n ? (size_t)b->left : n;
        b->left -= i;
        *used = i;
        return b->left ? WC_PARSE_INCOMPLETE : WC_PARSE_OK;
    }
    int st = 0;
    while (i < n && st == 0) {
        if (b->state == B_DATA) { /* the data in bulk */
            size_t k = b->left < n - i ? (size_t)b->left : n - i;
            i += k;
            b->left -= k;
            if (!b->left)
                b->state = B_DATA_CR;
            continue;
        }
        st = wc__chunk_byte(b, (unsigned char)p[i++], lim);
    }
    *used = i;
    return st ? st : WC_PARSE_INCOMPLETE;
}

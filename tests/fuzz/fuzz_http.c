/* fuzz_http.c — the web cache's request-head parser (apps/webcache/http.c) and request bodies
 * (http_body.c), as the server drives them: the head parsed incrementally in pieces, with the
 * empty lines before a request dropped between reads, then the body it announces.
 *
 * Input: byte 0 picks the piece size (below 0x80: all at once; else (b & 0x7f) + 1), byte 1 the
 * limits (small ones reach 414/431/413 quickly; large ones the server's defaults), the rest is
 * the stream. Checks besides the sanitizers: the verdict is one the parser may give and the same
 * whole as in pieces; a complete head lies inside the input, its target inside the head; the
 * body's verdict and length do not depend on the pieces either.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"

static const struct wc_limits lims[4] = {
    {8192, 16384, 1 << 20}, {128, 256, 300}, {16, 16, 16}, {1, 1, 0},
};

static int allowed(int st)
{
    switch (st) {
    case WC_PARSE_INCOMPLETE: case WC_PARSE_OK: case 400: case 413: case 414: case 417:
    case 431: case 501: case 505:
        return 1;
    }
    return 0;
}

/* Parses the head of buf[0..n) in pieces; *rq and the (possibly shifted) buffer's start out. */
static int parse_head(char *buf, size_t n, size_t piece, const struct wc_limits *lim,
                      struct wc_request *rq, size_t *dropped)
{
    struct wc_parser ps;
    wc_http_parser_init(&ps);
    size_t have = 0, fed = 0, base = 0; /* buf[base .. base+have) is the server's buffer */
    int st = WC_PARSE_INCOMPLETE;
    while (fed < n) {
        size_t k = n - fed < piece ? n - fed : piece;
        fed += k, have += k;
        st = wc_http_parse(&ps, buf + base, have, lim, rq);
        if (st != WC_PARSE_INCOMPLETE)
            break;
        size_t before = have;
        wc_http_drop_skipped(&ps, buf + base, &have); /* memmove within the buffer */
        /* the dropped bytes were empty lines: keep the rest of the input contiguous */
        if (have != before) {
            memmove(buf + base + have, buf + base + before, n - fed);
            n -= before - have;
            fed -= before - have;
            *dropped += before - have;
        }
    }
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t piece = data[0] < 0x80 ? (size_t)-1 : (size_t)(data[0] & 0x7f) + 1;
    const struct wc_limits *lim = &lims[data[1] & 3];
    data += 2, size -= 2;

    /* whole: a heap copy of exactly the input, so reads past it are caught */
    char *a = malloc(size ? size : 1), *b = malloc(size ? size : 1);
    memcpy(a, data, size);
    memcpy(b, data, size);
    struct wc_request ra, rb;
    size_t da = 0, db = 0;
    int sa = parse_head(a, size, (size_t)-1, lim, &ra, &da);
    int sb = parse_head(b, size, piece, lim, &rb, &db);
    if (!allowed(sa) || !allowed(sb))
        abort();
    if (sa != sb)
        abort(); /* the verdict depends on how the head arrived */
    if (sa == WC_PARSE_OK) {
        size_t n = size - da;
        if (ra.head_len > n || da + ra.head_len != db + rb.head_len)
            abort(); /* outside the input, or dependent on the pieces */
        int inside = ra.target >= a && ra.target + ra.target_len <= a + ra.head_len;
        if (!ra.target_len || !(inside || (ra.target_len == 1 && ra.target[0] == '/')))
            abort();
        if (ra.chunked && ra.content_length)
            abort();
        char path[256];
        int d = wc_http_decode_path(ra.target, ra.target_len, path, sizeof path);
        if (d != 0 && d != 400 && d != 404)
            abort();
        if (d == 0 && strlen(path) >= sizeof path)
            abort();
        /* the body: whole, then a byte at a time, same verdict and length */
        struct wc_body ba, bb;
        wc_http_body_init(&ba, &ra);
        wc_http_body_init(&bb, &ra);
        const char *body = a + ra.head_len;
        size_t blen = n - ra.head_len, used_a = 0, used_b = 0, u;
        int xa = wc_http_body(&ba, body, blen, lim, &used_a);
        int xb = WC_PARSE_INCOMPLETE;
        do { /* in pieces of up to 7 bytes (an empty body: one call with none) */
            size_t k = blen - used_b < 7 ? blen - used_b : 7;
            xb = wc_http_body(&bb, body + used_b, k, lim, &u);
            used_b += u;
        } while (used_b < blen && xb == WC_PARSE_INCOMPLETE);
        if (used_a > blen || xa != xb || (xa == WC_PARSE_OK && used_a != used_b))
            abort();
        if (xa != WC_PARSE_INCOMPLETE && xa != WC_PARSE_OK && xa != 400 && xa != 413 && xa != 431)
            abort();
    }
    free(a);
    free(b);
    return 0;
}

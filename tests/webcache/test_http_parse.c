/* test_http_parse.c — the request parser of apps/webcache/http.c on its own, under ASan+UBSan.
 *
 * Every input is copied into a heap block of exactly its size, so a read past the request (the
 * percent-decoding's old sscanf on a buffer without a NUL, issue 24 item 1) is an ASan error.
 * Checks: malformed escapes are 400 and valid ones decode; a head gives the same verdict
 * whether it arrives whole, split in two at any byte, or a byte at a time (item 5), including
 * requests exactly at and one past the limits; a 512 KB head fed a byte at a time is parsed in
 * linear time (item 7); a chunked body is decoded the same however it is split, and stops
 * exactly at its end (item 8).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http.h"

static int failures;
#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            failures++;                                                                        \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                               \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
        }                                                                                      \
    } while (0)

static const struct wc_limits lim = {64, 64, 100};

static char *exact(const char *s, size_t n)
{
    char *p = malloc(n ? n : 1);
    memcpy(p, s, n);
    return p;
}

static void test_decode(void)
{
    static const struct {
        const char *in;
        int st;
        const char *out;
    } cases[] = {{"/a%", 400, 0},       {"/a%4", 400, 0},      {"%", 400, 0},
                 {"/a%+5", 400, 0},     {"/a%-1", 400, 0},     {"/a%zz", 400, 0},
                 {"/a%4g", 400, 0},     {"/a% 4", 400, 0},     {"/a%00", 404, 0},
                 {"/a%41", 0, "/aA"},   {"/a%4a%4A", 0, "/aJJ"}, {"/x?%zz", 0, "/x"},
                 {"/%2Fb", 0, "//b"},   {"/plain", 0, "/plain"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t n = strlen(cases[i].in);
        char *t = exact(cases[i].in, n), out[64];
        int st = wc_http_decode_path(t, n, out, sizeof out);
        CHECK(st == cases[i].st, "decode %s: %d, expected %d", cases[i].in, st, cases[i].st);
        if (st == 0 && cases[i].out)
            CHECK(strcmp(out, cases[i].out) == 0, "decode %s: %s", cases[i].in, out);
        free(t);
    }
    char out[4];
    CHECK(wc_http_decode_path("/abcd", 5, out, sizeof out) == 404, "overflow is 404");
}

/* The verdict on s fed in pieces: cuts[0..ncuts) are the lengths seen by successive calls. */
static int parse_cuts(const char *s, size_t n, const size_t *cuts, size_t ncuts,
                      struct wc_request *rq)
{
    struct wc_parser ps;
    wc_http_parser_init(&ps);
    int st = WC_PARSE_INCOMPLETE;
    for (size_t i = 0; i <= ncuts && st == WC_PARSE_INCOMPLETE; i++) {
        size_t len = i < ncuts ? cuts[i] : n;
        char *b = exact(s, len);
        st = wc_http_parse(&ps, b, len, &lim, rq);
        free(b);
    }
    return st;
}

static void test_splits(const char *s, int want, const char *what)
{
    size_t n = strlen(s);
    struct wc_request rq;
    int whole = parse_cuts(s, n, NULL, 0, &rq);
    CHECK(whole == want, "%s: whole %d, expected %d", what, whole, want);
    size_t *cuts = malloc(n * sizeof *cuts);
    for (size_t cut = 1; cut < n; cut++) {
        int st = parse_cuts(s, n, &cut, 1, &rq);
        CHECK(st == whole, "%s: split at %zu: %d, whole %d", what, cut, st, whole);
    }
    for (size_t i = 0; i + 1 < n; i++)
        cuts[i] = i + 1;
    int st = parse_cuts(s, n, cuts, n - 1, &rq);
    CHECK(st == whole, "%s: byte at a time: %d, whole %d", what, st, whole);
    free(cuts);
}

static void test_heads(void)
{
    char line[80], hdr[80], req[256];
    snprintf(line, sizeof line, "GET /?%.*s HTTP/1.1", 49, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    CHECK(strlen(line) == 64, "request line length %zu", strlen(line));
    snprintf(hdr, sizeof hdr, "Host: x\r\nX-Pad: %.*s\r\n", 46, "pppppppppppppppppppppppppppppppppppppppppppppppp");
    CHECK(strlen(hdr) == 64, "header length %zu", strlen(hdr));
    snprintf(req, sizeof req, "%s\r\nHost: x\r\n\r\n", line);
    test_splits(req, WC_PARSE_OK, "request line at the limit");
    snprintf(req, sizeof req, "%sb\r\nHost: x\r\n\r\n", line);
    test_splits(req, 414, "request line one over");
    snprintf(req, sizeof req, "GET / HTTP/1.1\r\n%s\r\n", hdr);
    test_splits(req, WC_PARSE_OK, "headers at the limit");
    snprintf(req, sizeof req, "GET / HTTP/1.1\r\n%sX: y\r\n\r\n", hdr);
    test_splits(req, 431, "headers over");
    test_splits("\r\n\r\nGET http://x/a?b HTTP/1.1\r\nHost: x:80\r\n\r\n", WC_PARSE_OK,
                "empty lines, absolute-form");
    test_splits("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", WC_PARSE_OK, "asterisk-form");
    test_splits("GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400, "asterisk-form on GET");
    test_splits("GET /a#b HTTP/1.1\r\nHost: x\r\n\r\n", 400, "fragment");
    test_splits("GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400, "bad Host");
    test_splits("GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", WC_PARSE_OK,
                "chunked");
    test_splits("GET / HTTP/1.1\r\nHost: x\r\nExpect: nope\r\n\r\n", 417, "Expect");
    struct wc_request rq;
    struct wc_parser ps;
    const char *abs = "GET http://h/p?q HTTP/1.1\r\nHost: h\r\n\r\n";
    wc_http_parser_init(&ps);
    CHECK(wc_http_parse(&ps, abs, strlen(abs), &lim, &rq) == WC_PARSE_OK &&
          rq.target_len == 4 && memcmp(rq.target, "/p?q", 4) == 0, "absolute-form target");
}

/* A 512 KB header section fed one byte at a time: linear, so well under a second. */
static void test_linear(void)
{
    const struct wc_limits big = {64, 1 << 20, 0};
    size_t n = 0, cap = (512u << 10) + 64;
    char *s = malloc(cap);
    n += (size_t)sprintf(s, "GET / HTTP/1.1\r\nHost: x\r\n");
    while (n + 16 < cap - 8)
        n += (size_t)sprintf(s + n, "X-%06zu: y\r\n", n);
    n += (size_t)sprintf(s + n, "\r\n");
    struct wc_parser ps;
    struct wc_request rq;
    wc_http_parser_init(&ps);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int st = WC_PARSE_INCOMPLETE;
    for (size_t len = 1; len <= n && st == WC_PARSE_INCOMPLETE; len++)
        st = wc_http_parse(&ps, s, len, &big, &rq);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    CHECK(st == WC_PARSE_OK && rq.head_len == n, "512 KB head: %d", st);
    CHECK(secs < 1.0, "512 KB head a byte at a time took %.2f s (quadratic?)", secs);
    free(s);
}

/* Feeds body s (followed by "NEXT") in pieces of `piece` bytes; returns the status and sets
 * *consumed to the body bytes used. */
static int body_pieces(const char *s, size_t piece, int chunked, uint64_t cl, size_t *consumed)
{
    struct wc_request rq = {.chunked = chunked, .content_length = cl};
    struct wc_body b;
    wc_http_body_init(&b, &rq);
    size_t n = strlen(s), off = 0;
    int st = WC_PARSE_INCOMPLETE;
    while (st == WC_PARSE_INCOMPLETE && off < n) {
        size_t k = n - off < piece ? n - off : piece, used;
        char *p = exact(s + off, k);
        st = wc_http_body(&b, p, k, &lim, &used);
        free(p);
        CHECK(st != WC_PARSE_INCOMPLETE || used == k, "body: incomplete but %zu of %zu", used, k);
        off += used;
    }
    *consumed = off;
    return st;
}

static void test_bodies(void)
{
    static const struct {
        const char *s;
        int st;
    } cases[] = {{"5\r\nhello\r\n1a;x=y\r\nzzzzzzzzzzzzzzzzzzzzzzzzzz\r\n0\r\nT: 1\r\n\r\nNEXT", 1},
                 {"0\r\n\r\nNEXT", 1},
                 {"A; ext\r\n0123456789\r\n0\r\n\r\nNEXT", 1},
                 {"x\r\n", 400},
                 {"5\nhello", 400},
                 {"5\r\nhelloX", 400},
                 {"65\r\n", 413},
                 {"ffffffffffffffffffffff\r\n", 413},
                 {"0\r\nT: \x01\r\n\r\n", 400},
                 {"0\r\n\r\r", 400}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t whole_used, used;
        int whole = body_pieces(cases[i].s, 1 << 20, 1, 0, &whole_used);
        CHECK(whole == cases[i].st, "chunked #%zu: %d, expected %d", i, whole, cases[i].st);
        if (whole == WC_PARSE_OK)
            CHECK(strcmp(cases[i].s + whole_used, "NEXT") == 0, "chunked #%zu: stops at %zu", i,
                  whole_used);
        for (size_t piece = 1; piece < 8; piece++) {
            int st = body_pieces(cases[i].s, piece, 1, 0, &used);
            CHECK(st == whole && (st != WC_PARSE_OK || used == whole_used),
                  "chunked #%zu in pieces of %zu: %d", i, piece, st);
        }
    }
    size_t used;
    CHECK(body_pieces("helloNEXT", 2, 0, 5, &used) == WC_PARSE_OK && used == 5, "Content-Length");
}

int main(void)
{
    test_decode();
    test_heads();
    test_linear();
    test_bodies();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    puts("ok");
    return 0;
}

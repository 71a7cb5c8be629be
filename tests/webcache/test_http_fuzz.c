/* test_http_fuzz.c — a bounded mutation fuzz run of the request parser (http.c, http_body.c)
 * under ASan+UBSan.
 *
 * usage: http_fuzz-asan [SECONDS [SEED]]   (defaults: 10 s, seed 1; FUZZ_SECONDS overrides)
 *
 * Inputs are grown from seed requests (valid ones, and edge cases at the limits) by byte
 * flips, insertions of protocol tokens, deletions, duplications and splices. Each input is
 * parsed as the server does it: in a heap block of exactly its size, whole, and again fed in
 * random pieces (with the empty lines before a request dropped as the server drops them). A
 * read outside the input, undefined behaviour or a leak stops the run (sanitizers); besides:
 * the verdict is one the parser may give, it does not depend on the split, a complete head's
 * length lies inside the input and its target inside the head; the body of a complete head
 * gives the same verdict and length whole and in pieces; the target percent-decodes within
 * its bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http.h"

static const struct wc_limits lim = {128, 256, 300};
static uint64_t rng;
static unsigned long failures;

static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return n ? (uint32_t)(rng % n) : 0;
}

static const char *const seeds[] = {
    "GET /man/3/printf HTTP/1.1\r\nHost: x\r\n\r\n",
    "HEAD / HTTP/1.0\r\n\r\n",
    "GET http://x:80/_stats?q=1 HTTP/1.1\r\nHost: x:80\r\nConnection: close\r\n\r\n",
    "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
    "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;e=1\r\nhello\r\n0\r\nT: 1\r\n\r\n",
    "OPTIONS * HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nz",
    "CONNECT x.test:443 HTTP/1.1\r\nHost: [::1]:443\r\n\r\n",
    "\r\n\nGET /%41%zz HTTP/1.1\nHost: x\nX: \t v \n\n",
};
static const char *const tokens[] = {
    "\r\n", "\n", "\r", " ", "\t", ":", "%", "%0", "?", "#", "*", "\x01", "\x7f", "\xff",
    "Host: ", "Content-Length: ", "Transfer-Encoding: chunked", "Expect: 100-continue",
    "Connection: keep-alive", "HTTP/1.1", "HTTP/2.0", "0\r\n\r\n", "ffffffff", "\r\n\r\n",
};

#define MAXLEN 1200

static size_t mutate(char *b, size_t n)
{
    int rounds = 1 + (int)rnd(4);
    while (rounds--) {
        size_t at = n ? rnd((uint32_t)n + 1) : 0;
        switch (rnd(5)) {
        case 0: if (n) b[rnd((uint32_t)n)] ^= (char)(1u << rnd(8)); break;
        case 1: {
            const char *t = tokens[rnd(sizeof tokens / sizeof *tokens)];
            size_t k = strlen(t);
            if (n + k <= MAXLEN) {
                memmove(b + at + k, b + at, n - at);
                memcpy(b + at, t, k), n += k;
            }
            break;
        }
        case 2: {
            size_t k = rnd((uint32_t)(n - at) + 1);
            memmove(b + at, b + at + k, n - at - k), n -= k;
            break;
        }
        case 3: {
            size_t k = rnd((uint32_t)(n - at) + 1);
            if (n + k <= MAXLEN) {
                memmove(b + at + k, b + at, n - at), n += k; /* duplicate b[at, at+k) */
            }
            break;
        }
        default: { /* splice: the tail of another seed */
            const char *s = seeds[rnd(sizeof seeds / sizeof *seeds)];
            size_t sl = strlen(s), from = rnd((uint32_t)sl);
            if (at + sl - from <= MAXLEN)
                memcpy(b + at, s + from, sl - from), n = at + sl - from;
        }
        }
    }
    return n;
}

struct verdict { int st; size_t head_len, body_used; int body_st; char head[MAXLEN]; };

/* Parses in[0..n) fed in pieces (whole when `whole`), as the server's connection does. */
static void parse(const char *in, size_t n, int whole, struct verdict *v)
{
    struct wc_parser ps;
    struct wc_request rq;
    wc_http_parser_init(&ps);
    char *acc = malloc(MAXLEN + 1);
    size_t len = 0, fed = 0;
    int st = WC_PARSE_INCOMPLETE;
    while (st == WC_PARSE_INCOMPLETE && fed < n) {
        size_t k = whole ? n - fed : 1 + rnd((uint32_t)(n - fed));
        memcpy(acc + len, in + fed, k), len += k, fed += k;
        char *buf = malloc(len ? len : 1); /* exactly the bytes held: no slack to read */
        memcpy(buf, acc, len);
        st = wc_http_parse(&ps, buf, len, &lim, &rq);
        if (st == WC_PARSE_INCOMPLETE) {
            wc_http_drop_skipped(&ps, buf, &len);
            memcpy(acc, buf, len);
        } else if (st == WC_PARSE_OK) {
            int inside = rq.target >= buf && rq.target + rq.target_len <= buf + rq.head_len;
            if (rq.head_len > len || !rq.target_len ||
                !(inside || (rq.target_len == 1 && rq.target[0] == '/')))
                failures++, fprintf(stderr, "FAIL: head_len %zu / target outside\n", rq.head_len);
            char out[600];
            int d = wc_http_decode_path(rq.target, rq.target_len, out, sizeof out);
            if (d != 0 && d != 400 && d != 404)
                failures++, fprintf(stderr, "FAIL: decode gave %d\n", d);
            size_t skip = 0; /* the empty lines before the request: dropped or not */
            while (skip < rq.head_len && (buf[skip] == '\r' || buf[skip] == '\n'))
                skip++;
            v->head_len = rq.head_len - skip;
            memcpy(v->head, buf + skip, v->head_len);
            /* the body: what followed in this read, then the rest, in pieces */
            struct wc_body b;
            wc_http_body_init(&b, &rq);
            size_t pos = rq.head_len, used = 0, total = 0;
            int bst = rq.chunked || rq.content_length ? WC_PARSE_INCOMPLETE : WC_PARSE_OK;
            size_t blen = len - pos + (n - fed);
            char *body = malloc(blen ? blen : 1);
            memcpy(body, buf + pos, len - pos);
            memcpy(body + (len - pos), in + fed, n - fed);
            size_t bp = 0;
            while (bst == WC_PARSE_INCOMPLETE && bp < blen) {
                size_t k = whole ? blen - bp : 1 + rnd((uint32_t)(blen - bp));
                char *piece = malloc(k);
                memcpy(piece, body + bp, k);
                bst = wc_http_body(&b, piece, k, &lim, &used);
                if (used > k)
                    failures++, fprintf(stderr, "FAIL: body used %zu of %zu\n", used, k);
                free(piece);
                bp += used, total += used;
            }
            v->body_st = bst;
            v->body_used = total;
            free(body);
        }
        free(buf);
    }
    free(acc);
    v->st = st;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 10;
    if (getenv("FUZZ_SECONDS"))
        secs = atof(getenv("FUZZ_SECONDS"));
    rng = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    rng = rng * 0x9e3779b97f4a7c15ull | 1;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    static char cur[MAXLEN + 1];
    static struct verdict a, b;
    unsigned long iters = 0, ok = 0;
    do {
        const char *s = seeds[rnd(sizeof seeds / sizeof *seeds)];
        size_t n = strlen(s);
        memcpy(cur, s, n);
        n = mutate(cur, n);
        char *in = malloc(n ? n : 1);
        memcpy(in, cur, n);
        parse(in, n, 1, &a);
        parse(in, n, 0, &b);
        free(in);
        static const int allowed[] = {0, 1, 400, 413, 414, 417, 431, 501, 505};
        int known = 0;
        for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++)
            known |= a.st == allowed[i];
        if (!known || a.st != b.st ||
            (a.st == WC_PARSE_OK && (a.head_len != b.head_len || memcmp(a.head, b.head, a.head_len) ||
                                     a.body_st != b.body_st || a.body_used != b.body_used))) {
            failures++;
            fprintf(stderr, "FAIL: iteration %lu: whole %d (head %zu, body %d/%zu), pieces %d "
                    "(head %zu, body %d/%zu): %.*s\n", iters, a.st, a.head_len, a.body_st,
                    a.body_used, b.st, b.head_len, b.body_st, b.body_used, (int)n, cur);
        }
        ok += a.st == WC_PARSE_OK;
        iters++;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while (failures < 10 && (double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
    printf("%lu inputs (%lu complete heads) in %.1f s, %lu failure(s)\n", iters, ok,
           (double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9, failures);
    return failures ? 1 : 0;
}

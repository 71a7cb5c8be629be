/* main.c — command-line flags of webcache, parsed strictly from one table.
 *
 * Each flag has a name, a kind (integer with range, byte size with K/M/G suffix, seconds with
 * up to three decimals, string, policy), a default (the initial wc_config) and its help line.
 * Bad names, missing or malformed values and values out of range print one clear message and
 * exit with status 2. Both "--flag VALUE" and "--flag=VALUE" work; -p, -t, -v, -h are short.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum wc_kind { K_INT, K_SIZE, K_SECS, K_STR, K_POLICY, K_BOOL };

struct wc_flag {
    const char *name;
    char short_name;
    enum wc_kind kind;
    size_t off, width;        /* where the value goes in struct wc_config */
    unsigned long long min, max;
    const char *help;
};

#define F(field) offsetof(struct wc_config, field), sizeof(((struct wc_config *)0)->field)
static const struct wc_flag wc_flags[] = {
    {"procs", 'p', K_INT, F(procs), 1, 64, "server processes sharing the listening socket, each with its own cache"},
    {"threads", 't', K_INT, F(threads), 1, 1024, "worker threads per process (they read, answer and send)"},
    {"epoll-sets", 0, K_INT, F(epoll_sets), 1, 64, "epoll sets per process (the workers are spread over them)"},
    {"max-connections", 0, K_INT, F(max_conns), 1, 1000000, "open connections per process; more get 503"},
    {"max-connections-per-client", 0, K_INT, F(max_conns_per_client), 0, 1000000,
     "open connections per client IPv4 address and process; more get 503 (0: no limit)"},
    {"bind", 0, K_STR, F(bind), 1, 63, "IPv4 address to listen on"},
    {"port", 0, K_INT, F(port), 0, 65535, "TCP port; 0 picks a free one (printed at start)"},
    {"policy", 0, K_POLICY, F(policy), 0, 1, "cache replacement: lru or gdsf"},
    {"max-entries", 0, K_INT, F(max_entries), 1, 1000000, "cache limit on the number of pages"},
    {"max-bytes", 0, K_SIZE, F(max_bytes), 1, 1ull << 40, "cache limit on the total body bytes (K, M, G suffixes)"},
    {"max-object-size", 0, K_SIZE, F(max_object_size), 1, 1ull << 40, "larger pages are not cached (<= --max-bytes)"},
    {"max-age", 0, K_INT, F(max_age), 0, 31536000, "seconds pages stay fresh (Cache-Control: max-age); 0 = no-store"},
    {"keepalive-timeout", 0, K_SECS, F(keepalive_ms), 1, 3600000, "seconds an idle keep-alive connection stays open"},
    {"max-keepalive-requests", 0, K_INT, F(max_keepalive_requests), 0, 1000000,
     "requests served on one connection before it is closed (0: no limit)"},
    {"request-timeout", 0, K_SECS, F(request_timeout_ms), 1, 3600000,
     "seconds to receive a request from its first byte (then 408); also man2html's limit"},
    {"send-timeout", 0, K_SECS, F(send_timeout_ms), 1, 3600000, "seconds to send a response (then the connection is closed)"},
    {"shutdown-timeout", 0, K_SECS, F(shutdown_timeout_ms), 0, 3600000,
     "seconds SIGTERM/SIGINT leave requests in flight to finish; a second signal exits at once"},
    {"max-request-line", 0, K_SIZE, F(max_request_line), 64, 1 << 20, "longer request lines get 414"},
    {"max-header-bytes", 0, K_SIZE, F(max_header_bytes), 64, 1 << 20, "larger header sections get 431"},
    {"max-body", 0, K_SIZE, F(max_body), 0, 1 << 30, "request bodies (read and ignored) larger than this get 413"},
    {"man-dir", 0, K_STR, F(man_dir), 1, 511, "root of the man page tree"},
    {"man2html", 0, K_STR, F(man2html), 1, 511, "the man2html program"},
    {"link-host", 0, K_STR, F(link_host), 0, 127, "host[:port] for links in rendered pages (default: the listening address)"},
    {"verbose", 'v', K_BOOL, F(verbose), 0, 1, "log each request to stderr"},
};

static void wc_usage(FILE *f, const struct wc_config *d)
{
    fprintf(f, "usage: webcache [flags]   (this is the '%s' build)\n"
               "An HTTP/1.1 server of man pages (GET /man/SECTION/NAME, GET /_stats).\n\n",
            wc_build_name());
    for (size_t i = 0; i < sizeof wc_flags / sizeof *wc_flags; i++) {
        const struct wc_flag *fl = &wc_flags[i];
        char def[600] = "";
        const char *base = (const char *)d + fl->off;
        switch (fl->kind) {
        case K_INT: case K_SIZE: {
            unsigned long long v = 0;
            memcpy(&v, base, fl->width); /* little-endian: the low bytes hold the value */
            snprintf(def, sizeof def, "%llu", v);
            break;
        }
        case K_SECS: snprintf(def, sizeof def, "%g", *(const unsigned *)base / 1000.0); break;
        case K_STR: snprintf(def, sizeof def, "%s", base); break;
        case K_POLICY: snprintf(def, sizeof def, "%s", wc_policy_name(*(const enum wc_policy *)base)); break;
        case K_BOOL: break;
        }
        static const char *const meta[] = {" N", " BYTES", " SECS", " STR", " lru|gdsf", ""};
        char names[48];
        if (fl->short_name)
            snprintf(names, sizeof names, "-%c, --%s%s", fl->short_name, fl->name, meta[fl->kind]);
        else
            snprintf(names, sizeof names, "    --%s%s", fl->name, meta[fl->kind]);
        fprintf(f, "  %-28s %s%s%s%s\n", names, fl->help, *def ? " (default " : "", def,
                *def ? ")" : "");
    }
    fprintf(f, "  %-28s this help\n\nThe cache flags are accepted but unused by the nocache build."
               " SIGINT/SIGTERM stop the server (exit 0) within --shutdown-timeout;\na second"
               " signal stops it at once (exit 1).\n", "-h, --help");
}

static _Noreturn void wc_bad(const char *flag, const char *val, const char *why)
{
    fprintf(stderr, "webcache: --%s: %s%s%s%s (see --help)\n", flag, why, val ? " '" : "",
            val ? val : "", val ? "'" : "");
    exit(2);
}

static unsigned long long wc_parse_number(const struct wc_flag *fl, const char *s)
{
    if (!*s || *s == '-' || *s == '+' || *s == ' ')
        wc_bad(fl->name, s, "not a non-negative number");
    unsigned long long v = 0, mult = 1, frac = 0, scale = 1;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (~0ull - 9) / 10)
            wc_bad(fl->name, s, "number too large");
        v = v * 10 + (unsigned)(*p - '0');
    }
    if (p == s)
        wc_bad(fl->name, s, "not a number");
    if (fl->kind == K_SECS) {
        if (*p == '.') {
            for (p++; *p >= '0' && *p <= '9' && scale < 1000; p++)
                frac = frac * 10 + (unsigned)(*p - '0'), scale *= 10;
        }
        if (*p)
            wc_bad(fl->name, s, "seconds expected (like 5 or 0.25, at most 3 decimals)");
        if (v > fl->max / 1000)
            wc_bad(fl->name, s, "out of range");
        v = v * 1000 + frac * (1000 / scale);
    } else {
        if (fl->kind == K_SIZE && *p && !p[1]) {
            switch (*p) {
            case 'k': case 'K': mult = 1ull << 10; p++; break;
            case 'm': case 'M': mult = 1ull << 20; p++; break;
            case 'g': case 'G': mult = 1ull << 30; p++; break;
            }
        }
        if (*p)
            wc_bad(fl->name, s, fl->kind == K_SIZE ? "bytes expected (like 4096, 64K, 1M)" : "integer expected");
        if (v > (~0ull) / mult)
            wc_bad(fl->name, s, "number too large");
        v *= mult;
    }
    if (v < fl->min || v > fl->max) {
        char why[96];
        if (fl->kind == K_SECS)
            snprintf(why, sizeof why, "must be between %g and %g seconds", fl->min / 1000.0, fl->max / 1000.0);
        else
            snprintf(why, sizeof why, "must be between %llu and %llu", fl->min, fl->max);
        wc_bad(fl->name, s, why);
    }
    return v;
}

static void wc_set(struct wc_config *c, const struct wc_flag *fl, const char *val)
{
    char *dst = (char *)c + fl->off;
    switch (fl->kind) {
    case K_INT: case K_SIZE: case K_SECS: {
        unsigned long long v = wc_parse_number(fl, val);
        if (fl->width == sizeof(int)) {
            unsigned u = (unsigned)v;
            memcpy(dst, &u, sizeof u);
        } else {
            size_t z = (size_t)v;
            memcpy(dst, &z, sizeof z);
        }
        break;
    }
    case K_STR:
        if (strlen(val) < fl->min || strlen(val) > fl->max)
            wc_bad(fl->name, val, fl->min ? "empty or too long" : "too long");
        snprintf(dst, fl->width, "%s", val);
        break;
    case K_POLICY:
        if (strcmp(val, "lru") == 0)
            c->policy = WC_POLICY_LRU;
        else if (strcmp(val, "gdsf") == 0)
            c->policy = WC_POLICY_GDSF;
        else
            wc_bad(fl->name, val, "must be lru or gdsf, not");
        break;
    case K_BOOL:
        c->verbose = 1;
        break;
    }
}

int main(int argc, char **argv)
{
    struct wc_config cfg = {
        .procs = 1, .threads = 8, .epoll_sets = 1, .max_conns = 4096, .max_conns_per_client = 256,
        .send_timeout_ms = 10000, .bind = "127.0.0.1", .port = 8080,
        .policy = WC_POLICY_GDSF, .max_entries = 4096, .max_bytes = 64u << 20,
        .max_object_size = 1u << 20, .max_age = 3600, .keepalive_ms = 5000, .max_keepalive_requests = 100,
        .request_timeout_ms = 10000, .shutdown_timeout_ms = 5000, .max_request_line = 8192, .max_header_bytes = 16384,
        .max_body = 65536, .man_dir = "/usr/share/man", .man2html = "/usr/bin/man2html",
        .link_host = "",
    };
    const struct wc_config defaults = cfg;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        const struct wc_flag *fl = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            wc_usage(stdout, &defaults);
            return 0;
        }
        size_t n = strlen(a);
        if (a[0] == '-' && a[1] == '-' && a[2]) {
            const char *eq = strchr(a + 2, '=');
            n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            val = eq ? eq + 1 : NULL;
            for (size_t k = 0; k < sizeof wc_flags / sizeof *wc_flags; k++)
                if (strlen(wc_flags[k].name) == n && strncmp(wc_flags[k].name, a + 2, n) == 0)
                    fl = &wc_flags[k];
        } else if (a[0] == '-' && a[1] && !a[2]) {
            for (size_t k = 0; k < sizeof wc_flags / sizeof *wc_flags; k++)
                if (wc_flags[k].short_name == a[1])
                    fl = &wc_flags[k];
        }
        if (!fl) {
            fprintf(stderr, "webcache: unknown argument '%s' (see --help)\n", a);
            return 2;
        }
        if (fl->kind == K_BOOL) {
            if (val)
                wc_bad(fl->name, val, "takes no value, got");
        } else if (!val) {
            if (i + 1 >= argc)
                wc_bad(fl->name, NULL, "missing value");
            val = argv[++i];
        }
        wc_set(&cfg, fl, val);
    }
    if (cfg.max_object_size > cfg.max_bytes) {
        fprintf(stderr, "webcache: --max-object-size (%zu) must not exceed --max-bytes (%zu)\n",
                cfg.max_object_size, cfg.max_bytes);
        return 2;
    }
    if (cfg.epoll_sets > cfg.threads) {
        fprintf(stderr, "webcache: --epoll-sets (%d) must not exceed --threads (%d): each set "
                "needs a worker\n", cfg.epoll_sets, cfg.threads);
        return 2;
    }
    return wc_server_run(&cfg);
}

/* config.h — the server's settings (filled from the command line by main.c) and the build kind.
 *
 * One source, three builds, told apart by compile definitions (CMakeLists.txt):
 *   webcache-nocache  WC_SYNC_LOCK, WC_USE_CACHE=0: every page is rendered
 *   webcache-lock     WC_SYNC_LOCK, WC_USE_CACHE=1: one pthread mutex around the cache
 *   webcache-tm       WC_SYNC_TM,   WC_USE_CACHE=1: __transaction_atomic, -fgnu-tm
 */
#ifndef WC_CONFIG_H
#define WC_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "cache.h"

#ifndef WC_USE_CACHE
#error "WC_USE_CACHE must be 0 or 1 (set by CMakeLists.txt)"
#endif
static const int wc_use_cache = WC_USE_CACHE;

struct wc_config {
    int procs, threads, epoll_sets;
    unsigned max_conns;             /* open connections per process; past it: 503 */
    unsigned max_conns_per_client;  /* per client IPv4 address and process; 0: no limit */
    char bind[64];
    unsigned port;
    enum wc_policy policy;
    size_t max_entries, max_bytes, max_object_size;
    unsigned max_age;               /* seconds of freshness the man backend gives its pages */
    unsigned keepalive_ms;          /* idle time allowed between requests on a connection */
    unsigned request_timeout_ms;    /* time to receive one request (from its first byte) */
    unsigned send_timeout_ms;       /* time to send one response */
    unsigned max_keepalive_requests; /* requests per connection before it is closed; 0: no limit */
    unsigned shutdown_timeout_ms;   /* after SIGTERM/SIGINT: time to finish requests in flight */
    size_t max_request_line, max_header_bytes, max_body;
    char man_dir[512], man2html[512];
    char link_host[128];            /* man2html -H; "" = the listening address and port */
    int verbose;
};

static inline const char *wc_build_name(void)
{
    return wc_use_cache ? wc_cache_sync_name() : "nocache";
}

int wc_server_run(struct wc_config *cfg); /* server.c; returns the exit status */

#endif

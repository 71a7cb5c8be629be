/* wl_stats: per-connection counters and latency samples, merged into one report.
 *
 * Each connection thread owns a wl_counts (no sharing while the load runs). Latencies are kept
 * as exact samples (8 bytes per response; a 60 s run at 50k responses/s is 24 MB), so the
 * percentiles are exact: the p-th percentile is the sample of rank ceil(p/100 * n).
 */
#ifndef WL_STATS_H
#define WL_STATS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t responses;          /* complete responses inside the measured window */
    uint64_t non2xx;             /* ... of which with a status outside 200..299 */
    uint64_t bytes;              /* bytes received for them (headers + body) */
    uint64_t err_connect, err_io, err_parse, err_timeout;   /* inside the window */
    uint64_t total_responses;    /* every complete response, warm-up and drain included */
    uint64_t *lat_ns;            /* one latency per counted response */
    size_t nlat, caplat;
} wl_counts;

typedef struct {
    double seconds;              /* the measured window */
    uint64_t responses, non2xx, bytes, errors, total_responses;
    uint64_t err_connect, err_io, err_parse, err_timeout;
    double rps, mean_ms, p50_ms, p90_ms, p99_ms, max_ms;
    int connections;
    int inflight_at_end;         /* requests unanswered when the window closed */
    double oldest_inflight_ms;   /* how long the oldest of them had waited by then */
} wl_report;

int wl_counts_add_latency(wl_counts *c, uint64_t ns);   /* 0, or -1 when out of memory */
void wl_counts_free(wl_counts *c);

/* Merges n per-connection counts (their samples are consumed). */
int wl_report_make(wl_report *r, wl_counts *per_conn, int n, double seconds);
void wl_report_print(const wl_report *r, int json);

#endif

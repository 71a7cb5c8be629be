/* wl_stats: merging counts and computing latency percentiles (see wl_stats.h). */
#include "wl_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int wl_counts_add_latency(wl_counts *c, uint64_t ns)
{
    if (c->nlat == c->caplat) {
        size_t nc = c->caplat ? c->caplat * 2 : 4096;
        uint64_t *np = realloc(c->lat_ns, nc * sizeof *np);
        if (!np)
            return -1;
        c->lat_ns = np;
        c->caplat = nc;
    }
    c->lat_ns[c->nlat++] = ns;
    return 0;
}

void wl_counts_free(wl_counts *c)
{
    free(c->lat_ns);
    c->lat_ns = NULL;
    c->nlat = c->caplat = 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static double pct_ms(const uint64_t *sorted, size_t n, double p)
{
    if (n == 0)
        return 0;
    size_t rank = (size_t)(p / 100.0 * (double)n + 0.999999999);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return (double)sorted[rank - 1] / 1e6;
}

int wl_report_make(wl_report *r, wl_counts *pc, int n, double seconds)
{
    memset(r, 0, sizeof *r);
    r->seconds = seconds;
    r->connections = n;
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += pc[i].nlat;
    uint64_t *all = malloc((total ? total : 1) * sizeof *all);
    if (!all)
        return -1;
    size_t k = 0;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        r->responses += pc[i].responses;
        r->non2xx += pc[i].non2xx;
        r->bytes += pc[i].bytes;
        r->err_connect += pc[i].err_connect;
        r->err_io += pc[i].err_io;
        r->err_parse += pc[i].err_parse;
        r->err_timeout += pc[i].err_timeout;
        r->total_responses += pc[i].total_responses;
        for (size_t j = 0; j < pc[i].nlat; j++) {
            all[k++] = pc[i].lat_ns[j];
            sum += (double)pc[i].lat_ns[j];
        }
        wl_counts_free(&pc[i]);
    }
    r->errors = r->err_connect + r->err_io + r->err_parse + r->err_timeout;
    qsort(all, total, sizeof *all, cmp_u64);
    r->rps = seconds > 0 ? (double)r->responses / seconds : 0;
    r->mean_ms = total ? sum / (double)total / 1e6 : 0;
    r->p50_ms = pct_ms(all, total, 50);
    r->p90_ms = pct_ms(all, total, 90);
    r->p99_ms = pct_ms(all, total, 99);
    r->max_ms = total ? (double)all[total - 1] / 1e6 : 0;
    free(all);
    return 0;
}

void wl_report_print(const wl_report *r, int json)
{
    const char *fmt = json
        ? "{\"requests\": %llu, \"seconds\": %.3f, \"rps\": %.1f, \"mean_ms\": %.3f, "
          "\"p50_ms\": %.3f, \"p90_ms\": %.3f, \"p99_ms\": %.3f, \"max_ms\": %.3f, "
          "\"errors\": %llu, \"non2xx\": %llu, \"bytes\": %llu, \"connections\": %d, "
          "\"total_responses\": %llu, \"err_connect\": %llu, \"err_io\": %llu, "
          "\"err_parse\": %llu, \"err_timeout\": %llu, \"inflight_at_end\": %d, "
          "\"oldest_inflight_ms\": %.3f}\n"
        : "requests=%llu seconds=%.3f rps=%.1f mean_ms=%.3f p50_ms=%.3f p90_ms=%.3f "
          "p99_ms=%.3f max_ms=%.3f errors=%llu non2xx=%llu bytes=%llu connections=%d "
          "total_responses=%llu err_connect=%llu err_io=%llu err_parse=%llu err_timeout=%llu "
          "inflight_at_end=%d oldest_inflight_ms=%.3f\n";
    printf(fmt, (unsigned long long)r->responses, r->seconds, r->rps, r->mean_ms, r->p50_ms,
           r->p90_ms, r->p99_ms, r->max_ms, (unsigned long long)r->errors,
           (unsigned long long)r->non2xx, (unsigned long long)r->bytes, r->connections,
           (unsigned long long)r->total_responses, (unsigned long long)r->err_connect,
           (unsigned long long)r->err_io, (unsigned long long)r->err_parse,
           (unsigned long long)r->err_timeout, r->inflight_at_end, r->oldest_inflight_ms);
}

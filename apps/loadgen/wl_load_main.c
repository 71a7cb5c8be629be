/* webcache-load: closed-loop HTTP load generator for the web-cache experiment.
 *
 * --connections N threads, each owning one keep-alive connection: take the next URL of the
 * shared list (one atomic counter, wrapping), send a GET, read the whole response, repeat. So N
 * requests are outstanding at any time and the offered load follows the server's speed (closed
 * loop). Time is split into a warm-up (requests sent, not counted) and a measured window of
 * --duration seconds; a response counts in the window it completes in. At the window's end no
 * new request starts; responses in flight are awaited (up to --timeout) so that a server's own
 * request counter can be compared with total_responses, then the report is printed: one
 * key=value line, or a JSON object with --json (fields in apps/loadgen/README.md).
 */
#define _GNU_SOURCE   /* pthread_timedjoin_np */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wl_args.h"
#include "wl_http.h"
#include "wl_stats.h"
#include "wl_urlfile.h"

static const char USAGE[] =
    "usage: webcache-load --url-file FILE [--base http://HOST:PORT] [--connections N]\n"
    "                     [--duration S] [--warmup S] [--timeout S] [--json]\n"
    "Closed-loop HTTP/1.1 keep-alive load: N connections, each sending the next URL of FILE\n"
    "(wrapping) and waiting for the whole response. FILE holds paths (then --base is needed)\n"
    "or full http:// URLs, one per line ('-' = stdin); webcache-urls writes such lists.\n"
    "  --connections N  concurrent connections, one thread each, 1..4096 (default 4)\n"
    "  --duration S     measured seconds, >0 (default 10)\n"
    "  --warmup S       seconds of load before measuring, >=0 (default 0)\n"
    "  --timeout S      per-response timeout, >0 (default 10)\n"
    "  --json           print a JSON object instead of a key=value line\n"
    "Output: requests (responses completed in the window), seconds, rps, mean/p50/p90/p99/max\n"
    "latency in ms, errors, non2xx, bytes, connections, total_responses (warm-up and drain\n"
    "included), the errors by kind, and the requests unanswered when the window closed\n"
    "(inflight_at_end, oldest_inflight_ms: the longest such wait; large values mean connections\n"
    "the server did not serve, e.g. more connections than a thread-per-connection server's workers). Exit 0 if the run completed (errors are reported, not\n"
    "fatal), 1 if nothing could be measured (e.g. every connection refused), 2 on bad usage.\n";

typedef struct {
    const wl_urls *urls;
    const wl_target *target;
    atomic_size_t next;          /* index of the next URL, shared by all connections */
    atomic_int stop;             /* no new request after this */
    atomic_int abandon;          /* give up responses in flight */
    uint64_t window_start, window_end, timeout_ns;
    atomic_int out_of_memory;
} shared_state;

typedef struct {
    pthread_t tid;
    shared_state *sh;
    wl_counts counts;
    _Atomic uint64_t inflight_since;   /* send time of the request in flight, 0 if none */
} conn_thread;

static void count_error(wl_counts *c, enum wl_err e)
{
    switch (e) {
    case WL_ERR_CONNECT: c->err_connect++; break;
    case WL_ERR_PARSE: c->err_parse++; break;
    case WL_ERR_TIMEOUT: c->err_timeout++; break;
    default: c->err_io++; break;
    }
}

static void *conn_main(void *arg)
{
    conn_thread *ct = arg;
    shared_state *sh = ct->sh;
    wl_counts *c = &ct->counts;
    wl_conn conn;
    wl_conn_init(&conn);
    while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
        size_t i = atomic_fetch_add_explicit(&sh->next, 1, memory_order_relaxed) % sh->urls->n;
        uint64_t t0 = wl_now_ns();
        atomic_store_explicit(&ct->inflight_since, t0, memory_order_relaxed);
        wl_response resp = {0};
        enum wl_err e = wl_conn_get(&conn, sh->target, sh->urls->req[i], sh->urls->len[i],
                                    t0 + sh->timeout_ns, &sh->abandon, &resp);
        uint64_t t1 = wl_now_ns();
        atomic_store_explicit(&ct->inflight_since, 0, memory_order_relaxed);
        if (e == WL_ERR_ABANDONED)
            break;
        int in_window = t1 >= sh->window_start && t1 < sh->window_end;
        if (e != WL_OK) {
            if (in_window)
                count_error(c, e);
            if (e == WL_ERR_CONNECT) {   /* do not spin on a refused connection */
                struct timespec ts = {0, 10 * 1000 * 1000};
                nanosleep(&ts, NULL);
            }
            continue;
        }
        c->total_responses++;
        if (!in_window)
            continue;
        c->responses++;
        c->bytes += resp.bytes;
        if (resp.status < 200 || resp.status > 299)
            c->non2xx++;
        if (wl_counts_add_latency(c, t1 - t0) != 0)
            atomic_store(&sh->out_of_memory, 1);
    }
    wl_conn_free(&conn);
    return NULL;
}

static void sleep_until(uint64_t t)
{
    for (uint64_t now = wl_now_ns(); now < t; now = wl_now_ns()) {
        uint64_t d = t - now;
        struct timespec ts = {(time_t)(d / 1000000000u), (long)(d % 1000000000u)};
        nanosleep(&ts, NULL);
    }
}

int main(int argc, char **argv)
{
    wl_prog = "webcache-load";
    static const char *const flags[] = {"json", "help", NULL};
    const char *url_file = NULL, *base = NULL;
    int connections = 4, json = 0;
    double duration = 10, warmup = 0, timeout = 10;
    const char *opt, *v;
    int i = 1;
    while ((opt = wl_next_option(argc, argv, &i, &v, flags)) != NULL) {
        if (strcmp(opt, "help") == 0) {
            fputs(USAGE, stdout);
            return 0;
        } else if (strcmp(opt, "url-file") == 0) {
            url_file = v;
        } else if (strcmp(opt, "base") == 0) {
            base = v;
        } else if (strcmp(opt, "connections") == 0) {
            connections = (int)wl_parse_int(opt, v, 1, 4096);
        } else if (strcmp(opt, "duration") == 0) {
            duration = wl_parse_double(opt, v, 0.001, 86400);
        } else if (strcmp(opt, "warmup") == 0) {
            warmup = wl_parse_double(opt, v, 0, 86400);
        } else if (strcmp(opt, "timeout") == 0) {
            timeout = wl_parse_double(opt, v, 0.001, 3600);
        } else if (strcmp(opt, "json") == 0) {
            json = 1;
        } else {
            wl_usage_error("unknown option --%s", opt);
        }
    }
    if (!url_file)
        wl_usage_error("--url-file is required");

    char err[512];
    wl_target target;
    if (base && wl_target_parse(&target, base, err, sizeof err) != 0)
        wl_usage_error("bad value for --base: %s", err);
    wl_urls urls;
    if (wl_urls_load(&urls, url_file, base ? target.base : NULL, err, sizeof err) != 0) {
        fprintf(stderr, "webcache-load: %s\n", err);
        return 2;
    }
    if (!base && wl_target_parse(&target, urls.base, err, sizeof err) != 0) {
        fprintf(stderr, "webcache-load: %s\n", err);
        return 2;
    }

    shared_state sh = {.urls = &urls, .target = &target};
    atomic_init(&sh.next, 0);
    atomic_init(&sh.stop, 0);
    atomic_init(&sh.abandon, 0);
    atomic_init(&sh.out_of_memory, 0);
    sh.timeout_ns = (uint64_t)(timeout * 1e9);
    uint64_t start = wl_now_ns();
    sh.window_start = start + (uint64_t)(warmup * 1e9);
    sh.window_end = sh.window_start + (uint64_t)(duration * 1e9);

    conn_thread *th = calloc((size_t)connections, sizeof *th);
    if (!th) {
        fprintf(stderr, "webcache-load: out of memory\n");
        return 1;
    }
    int started = 0;
    for (; started < connections; started++) {
        th[started].sh = &sh;
        if (pthread_create(&th[started].tid, NULL, conn_main, &th[started]) != 0) {
            fprintf(stderr, "webcache-load: cannot start connection thread %d\n", started + 1);
            atomic_store(&sh.stop, 1);
            atomic_store(&sh.abandon, 1);
            break;
        }
    }
    sleep_until(sh.window_end);
    atomic_store(&sh.stop, 1);
    /* Requests still unanswered at the window's end are invisible in the latencies (they
     * complete later, or never): report how many and how long the oldest has waited. */
    uint64_t now = wl_now_ns(), oldest = 0;
    int inflight = 0;
    for (int k = 0; k < started; k++) {
        uint64_t since = atomic_load_explicit(&th[k].inflight_since, memory_order_relaxed);
        if (since && since < now) {
            inflight++;
            if (now - since > oldest)
                oldest = now - since;
        }
    }
    /* Let responses in flight finish (so total_responses matches the server), then give up. */
    uint64_t give_up = wl_now_ns() + sh.timeout_ns;
    for (int k = 0; k < started; k++) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t left = give_up > wl_now_ns() ? give_up - wl_now_ns() : 0;
        ts.tv_sec += (time_t)(left / 1000000000u);
        ts.tv_nsec += (long)(left % 1000000000u);
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        if (pthread_timedjoin_np(th[k].tid, NULL, &ts) != 0) {
            atomic_store(&sh.abandon, 1);
            pthread_join(th[k].tid, NULL);
        }
    }
    if (started < connections) {
        for (int k = 0; k < started; k++)
            wl_counts_free(&th[k].counts);
        return 1;
    }
    if (atomic_load(&sh.out_of_memory)) {
        fprintf(stderr, "webcache-load: out of memory for latency samples\n");
        return 1;
    }
    wl_counts per[connections];
    for (int k = 0; k < connections; k++)
        per[k] = th[k].counts;
    wl_report r;
    if (wl_report_make(&r, per, connections, duration) != 0) {
        fprintf(stderr, "webcache-load: out of memory\n");
        return 1;
    }
    r.inflight_at_end = inflight;
    r.oldest_inflight_ms = (double)oldest / 1e6;
    wl_report_print(&r, json);
    free(th);
    wl_urls_free(&urls);
    if (fflush(stdout) != 0)
        return 1;
    if (r.responses == 0) {
        fprintf(stderr, "webcache-load: no response in the measured window (%llu errors)\n",
                (unsigned long long)r.errors);
        return 1;
    }
    return 0;
}

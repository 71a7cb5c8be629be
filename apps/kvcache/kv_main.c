/* kv_main.c — kvcache's entry point: options, start-up, and a clean exit on SIGINT/SIGTERM
 * (exit() runs the TM runtime's exit handlers, e.g. tmkit's statistics report).
 *
 * Options are memcached's, parsed strictly (a bad value stops with a message):
 *   -p PORT (11211)  -t THREADS (4)  -m MEGABYTES (64)  -c MAXCONNS (1024)
 *   -I SIZE (1m; k/m suffixes; 1k..128m)  -l ADDR (127.0.0.1)  -f FACTOR (1.25)
 *   -v / -vv (log to stderr)  -U 0 (accepted: no UDP anyway)  -b BACKLOG (1024)
 *   -B auto|ascii|binary (auto)  -C (no CAS)  -D CHAR (`stats detail` prefix separator; turns
 *   detail on)  -F (no flush_all)  -M (out of memory instead of evicting)  -R N (20 commands
 *   per connection per turn)  -X (no stats cachedump)
 *   -o LIST, comma-separated: hashpower=N (16; 1..31); and, accepted because they ask for what
 *   kvcache always is (memcached 1.4's design): no_modern, no_lru_crawler, no_lru_maintainer,
 *   slab_chunk_max=N (kvcache never chunks items: one chunk of up to -I each)
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kv.h"

struct kv_settings kv_settings = {
    .port = 11211,
    .threads = 4,
    .maxbytes = 64u << 20,
    .maxconns = 1024,
    .item_max = 1u << 20,
    .addr = "127.0.0.1",
    .verbose = 0,
    .hashpower = 16,
    .factor = 1.25,
    .backlog = 1024,
    .binding = KV_BIND_AUTO,
    .use_cas = 1,
    .flush_enabled = 1,
    .evict = 1,
    .dump_enabled = 1,
    .reqs_per_event = 20,
    .prefix_delim = ':',
};

static void kv_usage(int code)
{
    fprintf(code ? stderr : stdout,
            "kvcache %s (%s build): a memcached-compatible server\n"
            "  -p PORT      TCP port (11211)\n"
            "  -l ADDR      IPv4 address to bind (127.0.0.1)\n"
            "  -t THREADS   worker threads (4)\n"
            "  -m MB        item memory in megabytes (64)\n"
            "  -c CONNS     most simultaneous connections (1024)\n"
            "  -I SIZE      largest item, also the slab page size (1m; k, m suffixes)\n"
            "  -f FACTOR    chunk size growth factor (1.25)\n"
            "  -b BACKLOG   listen backlog (1024)\n"
            "  -B PROTOCOL  auto, ascii or binary (auto: chosen by a connection's first byte)\n"
            "  -C           no CAS ids (gets shows 0, cas never matches)\n"
            "  -D CHAR      key prefix separator for `stats detail` (:); turns detail on\n"
            "  -F           refuse flush_all\n"
            "  -M           answer out of memory instead of evicting\n"
            "  -R N         commands a connection runs before others get a turn (20)\n"
            "  -X           refuse stats cachedump\n"
            "  -o LIST      comma-separated: hashpower=N (initial hash table 2^N, 16); accepted as\n"
            "               what kvcache always is: no_modern, no_lru_crawler, no_lru_maintainer,\n"
            "               slab_chunk_max=N (items are never chunked)\n"
            "  -v, -vv      log to stderr\n",
            KV_VERSION, KV_VARIANT);
    exit(code);
}

static long kv_num(const char *opt, const char *s, long lo, long hi, int suffix)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (suffix && end != s && (*end == 'k' || *end == 'K') && !end[1]) {
        v *= 1024;
        end++;
    } else if (suffix && end != s && (*end == 'm' || *end == 'M') && !end[1]) {
        v *= 1024 * 1024;
        end++;
    }
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "kvcache: %s %s: want a number from %ld to %ld\n", opt, s, lo, hi);
        exit(2);
    }
    return v;
}

/* One -o list: comma-separated settings. */
static void kv_extended(char *list)
{
    for (char *opt = strtok(list, ","); opt; opt = strtok(NULL, ",")) {
        if (!strncmp(opt, "hashpower=", 10)) {
            kv_settings.hashpower = (int)kv_num("-o hashpower", opt + 10, 1, 31, 0);
        } else if (!strncmp(opt, "slab_chunk_max=", 15)) {
            kv_num("-o slab_chunk_max", opt + 15, 1, 1L << 30, 0); /* items are never chunked */
        } else if (strcmp(opt, "no_modern") && strcmp(opt, "no_lru_crawler") &&
                   strcmp(opt, "no_lru_maintainer")) {
            fprintf(stderr, "kvcache: -o %s: known: hashpower=N, slab_chunk_max=N, no_modern, "
                            "no_lru_crawler, no_lru_maintainer\n", opt);
            exit(2);
        }
    }
}

static void kv_options(int argc, char **argv)
{
    int o;
    while ((o = getopt(argc, argv, "p:t:m:c:I:l:f:o:U:b:B:D:R:CFMXvh")) != -1) {
        switch (o) {
        case 'p': kv_settings.port = (int)kv_num("-p", optarg, 0, 65535, 0); break;
        case 't': kv_settings.threads = (int)kv_num("-t", optarg, 1, 256, 0); break;
        case 'm': kv_settings.maxbytes = (size_t)kv_num("-m", optarg, 1, 1 << 20, 0) << 20; break;
        case 'c': kv_settings.maxconns = (int)kv_num("-c", optarg, 1, 1 << 20, 0); break;
        case 'I': kv_settings.item_max = (size_t)kv_num("-I", optarg, 1024, 128 << 20, 1); break;
        case 'l': kv_settings.addr = optarg; break;
        case 'U': kv_num("-U", optarg, 0, 0, 0); break;
        case 'b': kv_settings.backlog = (int)kv_num("-b", optarg, 1, 1 << 20, 0); break;
        case 'R': kv_settings.reqs_per_event = (int)kv_num("-R", optarg, 1, 1 << 20, 0); break;
        case 'C': kv_settings.use_cas = 0; break;
        case 'F': kv_settings.flush_enabled = 0; break;
        case 'M': kv_settings.evict = 0; break;
        case 'X': kv_settings.dump_enabled = 0; break;
        case 'B':
            if (!strcmp(optarg, "auto")) {
                kv_settings.binding = KV_BIND_AUTO;
            } else if (!strcmp(optarg, "ascii")) {
                kv_settings.binding = KV_BIND_ASCII;
            } else if (!strcmp(optarg, "binary")) {
                kv_settings.binding = KV_BIND_BINARY;
            } else {
                fprintf(stderr, "kvcache: -B %s: want auto, ascii or binary\n", optarg);
                exit(2);
            }
            break;
        case 'D':
            if (strlen(optarg) != 1) {
                fprintf(stderr, "kvcache: -D %s: want one character\n", optarg);
                exit(2);
            }
            kv_settings.prefix_delim = optarg[0];
            kv_detail_enable(1);
            break;
        case 'v': kv_settings.verbose++; break;
        case 'h': kv_usage(0); break;
        case 'f': {
            char *end;
            kv_settings.factor = strtod(optarg, &end);
            if (*end || !(kv_settings.factor > 1.0 && kv_settings.factor <= 4.0)) {
                fprintf(stderr, "kvcache: -f %s: want a factor above 1 and at most 4\n", optarg);
                exit(2);
            }
            break;
        }
        case 'o': kv_extended(optarg); break;
        default: kv_usage(2);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "kvcache: unexpected argument '%s'\n", argv[optind]);
        exit(2);
    }
}

int main(int argc, char **argv)
{
    kv_options(argc, argv);
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL); /* threads started below inherit the mask */
    signal(SIGPIPE, SIG_IGN);
    kv_slabs_init();
    kv_assoc_init(kv_settings.hashpower);
    kv_server_run();
    KV_LOG(1, "kvcache %s (%s) listening on %s:%d\n", KV_VERSION, KV_VARIANT, kv_settings.addr,
           kv_settings.port);
    int sig = 0;
    sigwait(&sigs, &sig);
    KV_LOG(1, "kvcache: signal %d, exiting\n", sig);
    exit(0);
}

/* kv_main.c — kvcache's entry point: options, start-up, and a clean exit on SIGINT/SIGTERM
 * (exit() runs the TM runtime's exit handlers, e.g. tmkit's statistics report).
 *
 * Options are memcached's, parsed strictly (a bad value stops with a message):
 *   -p PORT (11211)  -t THREADS (4)  -m MEGABYTES (64)  -c MAXCONNS (1024)
 *   -I SIZE (1m; k/m suffixes; 1k..128m)  -l ADDR (127.0.0.1)  -f FACTOR (1.25)
 *   -v / -vv (log to stderr)  -o hashpower=N (16; 1..31)  -U 0 (accepted: no UDP anyway)
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
            "  -o hashpower=N  initial hash table size 2^N (16)\n"
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

static void kv_options(int argc, char **argv)
{
    int o;
    while ((o = getopt(argc, argv, "p:t:m:c:I:l:f:o:U:vh")) != -1) {
        switch (o) {
        case 'p': kv_settings.port = (int)kv_num("-p", optarg, 0, 65535, 0); break;
        case 't': kv_settings.threads = (int)kv_num("-t", optarg, 1, 256, 0); break;
        case 'm': kv_settings.maxbytes = (size_t)kv_num("-m", optarg, 1, 1 << 20, 0) << 20; break;
        case 'c': kv_settings.maxconns = (int)kv_num("-c", optarg, 1, 1 << 20, 0); break;
        case 'I': kv_settings.item_max = (size_t)kv_num("-I", optarg, 1024, 128 << 20, 1); break;
        case 'l': kv_settings.addr = optarg; break;
        case 'U': kv_num("-U", optarg, 0, 0, 0); break;
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
        case 'o':
            if (strncmp(optarg, "hashpower=", 10)) {
                fprintf(stderr, "kvcache: -o %s: only hashpower=N is known\n", optarg);
                exit(2);
            }
            kv_settings.hashpower = (int)kv_num("-o hashpower", optarg + 10, 1, 31, 0);
            break;
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

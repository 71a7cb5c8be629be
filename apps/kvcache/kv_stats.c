/* kv_stats.c — statistics: the global counters (stats_lock), the per-worker counters, the
 * text of the `stats`, `stats items`, `stats slabs` and `stats settings` replies, and the
 * per-prefix counters of `stats detail`.
 *
 * Global counters (KV_GSTATS in kv.h) change inside cache sections (link, unlink, eviction) and
 * in the listener (connections); KV_STAT_ADD in kv_sync.h says how, per build. They are read here
 * all at once: under stats_lock, in one transaction, or as one tm_counter_snapshot.
 * Per-worker counters (KV_TSTATS) are bumped by their worker under the worker's own mutex and
 * summed here, as memcached's thread stats are.
 * `stats` prints memcached 1.4's general statistics that describe kvcache (no libevent, SASL,
 * UDP, slab mover or LRU crawler lines), in memcached's order, then kvcache_build.
 * Per-prefix counters (`stats detail on`): a small table under its own mutex, touched by the
 * protocols outside any cache section and only while detail is on (not part of the experiment).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "kv.h"

pthread_mutex_t kv_cache_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t kv_slabs_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t kv_stats_lock = PTHREAD_MUTEX_INITIALIZER;

struct kv_gstats_s kv_gstats = {
#define KV_X(name, doc) .name = KV_COUNTER_INIT,
    KV_GSTATS(KV_X)
#undef KV_X
};

#define KV_MAX_WORKERS 256
static struct kv_tstats *kv_workers[KV_MAX_WORKERS];
static int kv_nworkers;

struct kv_tstats *kv_tstats_new(void)
{
    struct kv_tstats *t = calloc(1, sizeof *t);
    if (!t || kv_nworkers == KV_MAX_WORKERS)
        abort();
    pthread_mutex_init(&t->lock, NULL);
    kv_workers[kv_nworkers++] = t; /* start-up only, before the workers run */
    return t;
}

void kv_tstat_add(struct kv_tstats *t, enum kv_tstat_id id, uint64_t n)
{
    uint64_t *f = &t->cmd_get + id;
    pthread_mutex_lock(&t->lock);
    *f += n;
    pthread_mutex_unlock(&t->lock);
}

static void kv_tstats_sum(uint64_t *sum)
{
    memset(sum, 0, sizeof(uint64_t) * KV_TS_COUNT);
    for (int w = 0; w < kv_nworkers; w++) {
        pthread_mutex_lock(&kv_workers[w]->lock);
        for (int i = 0; i < KV_TS_COUNT; i++)
            sum[i] += (&kv_workers[w]->cmd_get)[i];
        pthread_mutex_unlock(&kv_workers[w]->lock);
    }
}

enum {
#define KV_X(name, doc) KV_GS_##name,
    KV_GSTATS(KV_X)
#undef KV_X
    KV_GS_COUNT
};

static void kv_gstats_snapshot(long *v)
{
#if KV_TMKIT
    tm_counter_t *const c[] = {
#define KV_X(name, doc) &kv_gstats.name,
        KV_GSTATS(KV_X)
#undef KV_X
    };
    tm_counter_snapshot(c, v, KV_GS_COUNT);
#else
    KV_STATS_BEGIN();
#define KV_X(name, doc) v[KV_GS_##name] = kv_gstats.name;
    KV_GSTATS(KV_X)
#undef KV_X
    KV_STATS_END();
#endif
}

void kv_stats_reset(void)
{
    for (int w = 0; w < kv_nworkers; w++) {
        pthread_mutex_lock(&kv_workers[w]->lock);
        memset(&kv_workers[w]->cmd_get, 0, sizeof(uint64_t) * KV_TS_COUNT);
        pthread_mutex_unlock(&kv_workers[w]->lock);
    }
    long v[KV_GS_COUNT];
    kv_gstats_snapshot(v);
    /* counters that are totals start again; the current levels stay */
    KV_STAT_ADD(total_items, -v[KV_GS_total_items]);
    KV_STAT_ADD(evictions, -v[KV_GS_evictions]);
    KV_STAT_ADD(reclaimed, -v[KV_GS_reclaimed]);
    KV_STAT_ADD(total_connections, -v[KV_GS_total_connections]);
    KV_STAT_ADD(rejected_connections, -v[KV_GS_rejected_connections]);
    kv_items_stats_reset();
    kv_detail_reset();
}

#define KV_APPEND(...)                                                                            \
    do {                                                                                          \
        if (len < (int)cap)                                                                       \
            len += snprintf(out + len, cap - (size_t)len, __VA_ARGS__);                           \
    } while (0)

static int kv_stats_general(char *out, size_t cap)
{
    int len = 0;
    long g[KV_GS_COUNT], hp, hb, hx, exp_unf, ev_unf, reflocked;
    uint64_t t[KV_TS_COUNT];
    struct rusage ru;
    int64_t now = kv_now();
    kv_gstats_snapshot(g);
    kv_tstats_sum(t);
    kv_assoc_info(&hp, &hb, &hx);
    kv_items_totals(&exp_unf, &ev_unf, &reflocked);
    getrusage(RUSAGE_SELF, &ru);
#define KV_T(name) (unsigned long long)t[KV_TS_##name]
    KV_APPEND("STAT pid %ld\r\nSTAT uptime %ld\r\nSTAT time %ld\r\nSTAT version %s\r\n",
              (long)getpid(), (long)(now - kv_started), (long)now, KV_VERSION);
    KV_APPEND("STAT pointer_size %d\r\n", (int)(8 * sizeof(void *)));
    KV_APPEND("STAT rusage_user %ld.%06ld\r\nSTAT rusage_system %ld.%06ld\r\n",
              (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec, (long)ru.ru_stime.tv_sec,
              (long)ru.ru_stime.tv_usec);
    KV_APPEND("STAT max_connections %d\r\n", kv_settings.maxconns);
    KV_APPEND("STAT curr_connections %ld\r\nSTAT total_connections %ld\r\n"
              "STAT rejected_connections %ld\r\n",
              g[KV_GS_curr_connections], g[KV_GS_total_connections],
              g[KV_GS_rejected_connections]);
    KV_APPEND("STAT cmd_get %llu\r\nSTAT cmd_set %llu\r\nSTAT cmd_flush %llu\r\n"
              "STAT cmd_touch %llu\r\nSTAT get_hits %llu\r\nSTAT get_misses %llu\r\n"
              "STAT get_expired %llu\r\nSTAT get_flushed %llu\r\n",
              KV_T(cmd_get), KV_T(cmd_set), KV_T(cmd_flush), KV_T(cmd_touch), KV_T(get_hits),
              KV_T(get_misses), KV_T(get_expired), KV_T(get_flushed));
    KV_APPEND("STAT delete_misses %llu\r\nSTAT delete_hits %llu\r\nSTAT incr_misses %llu\r\n"
              "STAT incr_hits %llu\r\nSTAT decr_misses %llu\r\nSTAT decr_hits %llu\r\n"
              "STAT cas_misses %llu\r\nSTAT cas_hits %llu\r\nSTAT cas_badval %llu\r\n"
              "STAT touch_hits %llu\r\nSTAT touch_misses %llu\r\n",
              KV_T(delete_misses), KV_T(delete_hits), KV_T(incr_misses), KV_T(incr_hits),
              KV_T(decr_misses), KV_T(decr_hits), KV_T(cas_misses), KV_T(cas_hits),
              KV_T(cas_badval), KV_T(touch_hits), KV_T(touch_misses));
    KV_APPEND("STAT store_too_large %llu\r\nSTAT store_no_memory %llu\r\n"
              "STAT bytes_read %llu\r\nSTAT bytes_written %llu\r\n",
              KV_T(store_too_large), KV_T(store_no_memory), KV_T(bytes_read),
              KV_T(bytes_written));
    /* the listener never stops accepting: past -c it refuses (memcached's maxconns_fast) */
    KV_APPEND("STAT limit_maxbytes %zu\r\nSTAT accepting_conns 1\r\n"
              "STAT listen_disabled_num 0\r\nSTAT time_in_listen_disabled_us 0\r\n"
              "STAT threads %d\r\nSTAT conn_yields %llu\r\n",
              kv_settings.maxbytes, kv_settings.threads, KV_T(conn_yields));
    KV_APPEND("STAT hash_power_level %ld\r\nSTAT hash_bytes %ld\r\nSTAT hash_is_expanding %ld\r\n",
              hp, hb, hx);
    KV_APPEND("STAT malloc_fails %ld\r\n", kv_slabs_malloc_fails());
    KV_APPEND("STAT bytes %ld\r\nSTAT curr_items %ld\r\nSTAT total_items %ld\r\n"
              "STAT expired_unfetched %ld\r\nSTAT evicted_unfetched %ld\r\n"
              "STAT evictions %ld\r\nSTAT reclaimed %ld\r\nSTAT lrutail_reflocked %ld\r\n",
              g[KV_GS_bytes], g[KV_GS_curr_items], g[KV_GS_total_items], exp_unf, ev_unf,
              g[KV_GS_evictions], g[KV_GS_reclaimed], reflocked);
#undef KV_T
    KV_APPEND("STAT kvcache_build %s\r\n", KV_VARIANT);
    return len;
}

/* The settings memcached 1.4 reports that mean something here (kvcache's own values: no UDP, no
 * unix socket, no SASL, no slab mover or LRU crawler, items never chunked). */
static int kv_stats_settings(char *out, size_t cap)
{
    static const char *const binding[] = {"auto-negotiate", "ascii", "binary"};
    const struct kv_settings *s = &kv_settings;
    int len = 0;
    KV_APPEND("STAT maxbytes %zu\r\nSTAT maxconns %d\r\nSTAT tcpport %d\r\nSTAT udpport 0\r\n"
              "STAT inter %s\r\nSTAT verbosity %d\r\nSTAT evictions %s\r\n"
              "STAT domain_socket NULL\r\nSTAT shutdown_command no\r\n",
              s->maxbytes, s->maxconns, s->port, s->addr, kv_verbose(), s->evict ? "on" : "off");
    KV_APPEND("STAT growth_factor %.2f\r\nSTAT chunk_size %zu\r\nSTAT num_threads %d\r\n"
              "STAT stat_key_prefix %c\r\nSTAT detail_enabled %s\r\nSTAT reqs_per_event %d\r\n"
              "STAT cas_enabled %s\r\nSTAT tcp_backlog %d\r\nSTAT binding_protocol %s\r\n"
              "STAT auth_enabled_sasl no\r\nSTAT item_size_max %zu\r\nSTAT maxconns_fast yes\r\n"
              "STAT hashpower_init %d\r\n",
              s->factor, kv_slabs_chunk_size(1) - sizeof(kv_item), s->threads, s->prefix_delim,
              __atomic_load_n(&kv_detail_on, __ATOMIC_RELAXED) ? "yes" : "no",
              s->reqs_per_event, s->use_cas ? "yes" : "no", s->backlog, binding[s->binding],
              s->item_max, s->hashpower);
    KV_APPEND("STAT slab_reassign no\r\nSTAT slab_automove 0\r\nSTAT slab_chunk_max %zu\r\n"
              "STAT lru_crawler no\r\nSTAT lru_maintainer_thread no\r\n"
              "STAT flush_enabled %s\r\nSTAT dump_enabled %s\r\n",
              s->item_max, s->flush_enabled ? "yes" : "no", s->dump_enabled ? "yes" : "no");
    return len;
}

int kv_stats_report(const char *what, char *out, size_t cap)
{
    int len = 0;
    if (!*what)
        return kv_stats_general(out, cap);
    if (!strcmp(what, "settings"))
        return kv_stats_settings(out, cap);
    if (!strcmp(what, "slabs"))
        return kv_slabs_stats(out, cap);
    if (!strcmp(what, "items")) {
        kv_items_stats(out, cap, &len);
        return len;
    }
    return -1;
}

/* ---- stats detail: per-prefix counters ---- */

#define KV_PREFIX_MAX 4096 /* prefixes tracked; later new ones are not counted */

struct kv_prefix {
    struct kv_prefix *next; /* hash chain */
    uint64_t gets, hits, sets, dels;
    uint8_t len;
    char name[KV_KEY_MAX];
};

int kv_detail_on;
static pthread_mutex_t kv_detail_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kv_prefix *kv_prefix_hash[256];  /* under kv_detail_lock */
static struct kv_prefix *kv_prefix_order[KV_PREFIX_MAX]; /* in order of first use */
static int kv_nprefix;

void kv_detail_enable(int on) { __atomic_store_n(&kv_detail_on, on, __ATOMIC_RELAXED); }

void kv_detail_record(const char *key, size_t nkey, enum kv_detail_op op, int hit)
{
    const char *sep = memchr(key, kv_settings.prefix_delim, nkey);
    if (!sep)
        return;
    size_t len = (size_t)(sep - key);
    unsigned h = 0;
    for (size_t i = 0; i < len; i++)
        h = h * 31 + (unsigned char)key[i];
    h &= 255;
    pthread_mutex_lock(&kv_detail_lock);
    struct kv_prefix *p = kv_prefix_hash[h];
    while (p && !(p->len == len && !memcmp(p->name, key, len)))
        p = p->next;
    if (!p && kv_nprefix < KV_PREFIX_MAX && (p = calloc(1, sizeof *p))) {
        p->len = (uint8_t)len;
        memcpy(p->name, key, len);
        p->next = kv_prefix_hash[h];
        kv_prefix_hash[h] = p;
        kv_prefix_order[kv_nprefix++] = p;
    }
    if (p) {
        if (op == KV_DETAIL_GET) {
            p->gets++;
            p->hits += hit != 0;
        } else if (op == KV_DETAIL_SET) {
            p->sets++;
        } else {
            p->dels++;
        }
    }
    pthread_mutex_unlock(&kv_detail_lock);
}

int kv_detail_dump(char *out, size_t cap) /* cap >= 6 */
{
    int len = 0;
    pthread_mutex_lock(&kv_detail_lock);
    for (int i = 0; i < kv_nprefix; i++) { /* whole lines only, and always room for END */
        struct kv_prefix *p = kv_prefix_order[i];
        char line[KV_KEY_MAX + 128];
        int n = snprintf(line, sizeof line, "PREFIX %.*s get %llu hit %llu set %llu del %llu\r\n",
                         p->len, p->name, (unsigned long long)p->gets,
                         (unsigned long long)p->hits, (unsigned long long)p->sets,
                         (unsigned long long)p->dels);
        if ((size_t)len + (size_t)n + 6 > cap)
            break;
        memcpy(out + len, line, (size_t)n);
        len += n;
    }
    pthread_mutex_unlock(&kv_detail_lock);
    memcpy(out + len, "END\r\n", 6);
    return len + 5;
}

void kv_detail_reset(void)
{
    pthread_mutex_lock(&kv_detail_lock);
    for (int i = 0; i < kv_nprefix; i++)
        free(kv_prefix_order[i]);
    memset(kv_prefix_hash, 0, sizeof kv_prefix_hash);
    kv_nprefix = 0;
    pthread_mutex_unlock(&kv_detail_lock);
}

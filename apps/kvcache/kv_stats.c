/* kv_stats.c — statistics: the global counters (stats_lock), the per-worker counters, and the
 * text of the `stats`, `stats items`, `stats slabs` and `stats settings` replies.
 *
 * Global counters (KV_GSTATS in kv.h) change inside cache sections (link, unlink, eviction) and
 * in the listener (connections); KV_STAT_ADD in kv_sync.h says how, per build. They are read here
 * all at once: under stats_lock, in one transaction, or as one tm_counter_snapshot.
 * Per-worker counters (KV_TSTATS) are bumped by their worker under the worker's own mutex and
 * summed here, as memcached's thread stats are.
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

static const char *const kv_tstat_names[] = {
#define KV_X(name) #name,
    KV_TSTATS(KV_X)
#undef KV_X
};

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
}

#define KV_APPEND(...)                                                                            \
    do {                                                                                          \
        if (len < (int)cap)                                                                       \
            len += snprintf(out + len, cap - (size_t)len, __VA_ARGS__);                           \
    } while (0)

static int kv_stats_general(char *out, size_t cap)
{
    int len = 0;
    long g[KV_GS_COUNT], hp, hb, hx;
    uint64_t t[KV_TS_COUNT];
    struct rusage ru;
    int64_t now = kv_now();
    kv_gstats_snapshot(g);
    kv_tstats_sum(t);
    kv_assoc_info(&hp, &hb, &hx);
    getrusage(RUSAGE_SELF, &ru);
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
    for (int i = 0; i < KV_TS_COUNT; i++)
        KV_APPEND("STAT %s %llu\r\n", kv_tstat_names[i], (unsigned long long)t[i]);
    KV_APPEND("STAT limit_maxbytes %zu\r\nSTAT threads %d\r\n", kv_settings.maxbytes,
              kv_settings.threads);
    KV_APPEND("STAT hash_power_level %ld\r\nSTAT hash_bytes %ld\r\nSTAT hash_is_expanding %ld\r\n",
              hp, hb, hx);
    KV_APPEND("STAT bytes %ld\r\nSTAT curr_items %ld\r\nSTAT total_items %ld\r\n"
              "STAT evictions %ld\r\nSTAT reclaimed %ld\r\n",
              g[KV_GS_bytes], g[KV_GS_curr_items], g[KV_GS_total_items], g[KV_GS_evictions],
              g[KV_GS_reclaimed]);
    KV_APPEND("STAT kvcache_build %s\r\n", KV_VARIANT);
    return len;
}

static int kv_stats_settings(char *out, size_t cap)
{
    int len = 0;
    KV_APPEND("STAT maxbytes %zu\r\nSTAT maxconns %d\r\nSTAT tcpport %d\r\n"
              "STAT verbosity %d\r\nSTAT num_threads %d\r\nSTAT growth_factor %.2f\r\n"
              "STAT item_size_max %zu\r\nSTAT hashpower_init %d\r\n",
              kv_settings.maxbytes, kv_settings.maxconns, kv_settings.port, kv_verbose(),
              kv_settings.threads, kv_settings.factor, kv_settings.item_max,
              kv_settings.hashpower);
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

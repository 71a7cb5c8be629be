/* stats.c — counters for GET /_stats, per process and summed over processes.
 *
 * Each server process owns one slot in a shared anonymous mapping made before the processes
 * fork. Request counters are added to the slot atomically as they happen; the cache's counters
 * (kept inside the cache, under its critical section) are copied into the slot by the process's
 * listener thread every 100 ms and by every /_stats request. /_stats answers with the sum of
 * all slots ("scope": "all"; other processes' cache counters at most ~100 ms old), so a load
 * generator gets the server-wide hit rate whichever process serves it; "processes" lists each.
 */
#include "stats.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static struct wc_stats_slot *wc__slots;
static int wc__nslots, wc__self;

int wc_stats_init(int procs)
{
    size_t size = sizeof *wc__slots * (size_t)procs;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    memset(p, 0, size);
    wc__slots = p;
    wc__nslots = procs;
    return 0;
}

void wc_stats_attach(int index)
{
    wc__self = index;
    __atomic_store_n(&wc__slots[index].pid, (uint64_t)getpid(), __ATOMIC_RELAXED);
}

void wc_stats_add(size_t off)
{
    __atomic_fetch_add((uint64_t *)((char *)&wc__slots[wc__self] + off), 1, __ATOMIC_RELAXED);
}

void wc_stats_publish(struct wc_cache *c)
{
    if (!c)
        return;
    struct wc_cache_stats s;
    wc_cache_get_stats(c, &s);
    struct wc_stats_slot *me = &wc__slots[wc__self];
#define WC_PUT(f) __atomic_store_n(&me->f, s.f, __ATOMIC_RELAXED)
    WC_PUT(hits), WC_PUT(misses), WC_PUT(entries), WC_PUT(bytes), WC_PUT(evictions);
    WC_PUT(expired), WC_PUT(inserts), WC_PUT(rejected);
#undef WC_PUT
}

size_t wc_stats_json_cap(void)
{
    /* each counter at most ", \"NAME\": " and 20 digits; the fixed part of the document
     * (names, policy, build, limits) is under 512 bytes */
    size_t per_process = sizeof ", {\"pid\": 18446744073709551615}";
#define WC_X(name, doc) per_process += sizeof ", \"" #name "\": " + 20;
    WC_STATS_FIELDS(WC_X)
#undef WC_X
    return 512 + per_process * ((size_t)wc__nslots + 1);
}

#define WC_APPEND(...)                                                                         \
    do {                                                                                       \
        int k_ = snprintf(buf + n, cap - n, __VA_ARGS__);                                      \
        if (k_ < 0 || (size_t)k_ >= cap - n)                                                   \
            return 0;                                                                          \
        n += (size_t)k_;                                                                       \
    } while (0)

size_t wc_stats_json(char *buf, size_t cap, struct wc_cache *c, const struct wc_config *cfg)
{
    wc_stats_publish(c);
    struct wc_stats_slot sum = {0}, one[64];
    for (int i = 0; i < wc__nslots && i < 64; i++) {
        one[i].pid = __atomic_load_n(&wc__slots[i].pid, __ATOMIC_RELAXED);
#define WC_X(name, doc)                                                                        \
    one[i].name = __atomic_load_n(&wc__slots[i].name, __ATOMIC_RELAXED);                       \
    sum.name += one[i].name;
        WC_STATS_FIELDS(WC_X)
#undef WC_X
    }
    size_t n = 0;
    WC_APPEND("{\"pid\": %d, \"build\": \"%s\", \"policy\": \"%s\", \"scope\": \"all\", "
              "\"procs\": %d, \"threads\": %d, \"max_entries\": %zu, \"max_bytes\": %zu, "
              "\"max_object_size\": %zu",
              (int)getpid(), wc_build_name(), wc_use_cache ? wc_policy_name(cfg->policy) : "none",
              cfg->procs, cfg->threads, cfg->max_entries, cfg->max_bytes, cfg->max_object_size);
#define WC_X(name, doc) WC_APPEND(", \"%s\": %llu", #name, (unsigned long long)sum.name);
    WC_STATS_FIELDS(WC_X)
#undef WC_X
    WC_APPEND(", \"processes\": [");
    for (int i = 0; i < wc__nslots && i < 64; i++) {
        WC_APPEND("%s{\"pid\": %llu", i ? ", " : "", (unsigned long long)one[i].pid);
#define WC_X(name, doc) WC_APPEND(", \"%s\": %llu", #name, (unsigned long long)one[i].name);
        WC_STATS_FIELDS(WC_X)
#undef WC_X
        WC_APPEND("}");
    }
    WC_APPEND("]}\n");
    return n;
}

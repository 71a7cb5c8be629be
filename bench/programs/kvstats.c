/* kvstats: memcached's shape of a get: a hash lookup and, now and then, an update of the item,
 * plus three hot statistics counters bumped inside the same critical section (memcached's
 * get_cmds, get_hits or get_misses, bytes_read). Its authors found that such counters, nested
 * in the big cache transactions, made them conflict with each other: "performance does not
 * compose". --counters picks what the counters are:
 *   none    no counters: the transactions' own conflicts only (the reference);
 *   plain   shared variables written inside the transaction (the transactified original);
 *   tm      tm_counter_t (include/tmkit/counter.h): added at commit, outside the read and
 *           write sets (in the mutex build: plain, under the lock).
 * Items: --items keys in --buckets chains, each with a value of --value-words words; an operation
 * looks up a uniform key in [0, 2 x items) (half miss); a hit reads the whole value (the copy
 * into the reply that makes memcached's get transaction large: 64 words = 512 bytes, a typical
 * item), and --update-pct percent of the hits rewrite the value and bump its version instead (a
 * set of the same size, or memcached's LRU relink, which it does at most once a minute an item).
 * Invariant: every item's value words equal its version; with counters, get_cmds equals the
 * operations done, hits + misses = get_cmds, bytes_read = 8 x value-words x hits. */
#include "bench.h"
#ifndef BENCH_MUTEX
#include <tmkit.h>
#endif

static long n_items = 16384, n_buckets = 4096, update_pct = 2, counters_kind = 0, n_words = 4;
static const char *const counter_kinds[] = {"none", "plain", "tm", NULL};

static const bench_option options[] = {
    {"items", BENCH_LONG, &n_items, 1, 1 << 24, NULL, "items in the table"},
    {"buckets", BENCH_LONG, &n_buckets, 1, 1 << 24, NULL, "hash chains"},
    {"value-words", BENCH_LONG, &n_words, 1, 4096, NULL, "words (8 bytes) in each value"},
    {"update-pct", BENCH_LONG, &update_pct, 0, 100, NULL, "percent of hits that rewrite the item"},
    {"counters", BENCH_CHOICE, &counters_kind, 0, 0, counter_kinds, "the statistics counters"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

typedef struct item {
    long key;
    struct item *next;
    long version;
    long value[]; /* n_words */
} item;

static item **buckets;
/* plain counters, one line each (as memcached's globals would be, at best) */
static struct { _Alignas(64) long v; } get_cmds, get_hits, get_misses, bytes_read;
#ifndef BENCH_MUTEX
static tm_counter_t c_cmds = TM_COUNTER_INITIALIZER, c_hits = TM_COUNTER_INITIALIZER,
                    c_misses = TM_COUNTER_INITIALIZER, c_bytes = TM_COUNTER_INITIALIZER;
#endif

static inline long bucket_of(long key) { return (long)(bench_hash(key) % (uint64_t)n_buckets); }

TM_SAFE static item *find(long key)
{
    for (item *it = buckets[bucket_of(key)]; it; it = it->next)
        if (it->key == key)
            return it;
    return NULL;
}

TM_SAFE static void count(int hit, long bytes)
{
#ifndef BENCH_MUTEX
    if (counters_kind == 2) {
        tm_counter_add(&c_cmds, 1);
        tm_counter_add(hit ? &c_hits : &c_misses, 1);
        tm_counter_add(&c_bytes, bytes);
        return;
    }
#endif
    if (counters_kind == 0)
        return;
    get_cmds.v++; /* plain (and tm_counter_t's stand-in in the mutex build) */
    if (hit)
        get_hits.v++;
    else
        get_misses.v++;
    bytes_read.v += bytes;
}

static int bench_setup(int threads)
{
    buckets = bench_xalloc((size_t)n_buckets * sizeof *buckets);
    for (long k = 0; k < n_items; k++) {
        item *it = bench_xalloc(sizeof *it + (size_t)n_words * sizeof it->value[0]);
        it->key = k;
        it->next = buckets[bucket_of(k)];
        buckets[bucket_of(k)] = it;
    }
    return 0;
}

static void bench_thread_init(bench_thread *t)
{
}

/* count[0]: hits; count[1]: updates. */
static inline void bench_op(bench_thread *t)
{
    long key = bench_rand_below(t, 2 * n_items);
    int update = bench_rand_below(t, 100) < update_pct, hit;
    long sum = 0;
    TXN_BEGIN
    item *it = find(key);
    hit = it != NULL;
    if (it) {
        if (update) {
            long v = it->version + 1;
            for (long i = 0; i < n_words; i++)
                it->value[i] = v;
            it->version = v;
        } else {
            for (long i = 0; i < n_words; i++)
                sum += it->value[i];
        }
    }
    count(hit, hit ? 8 * n_words : 0);
    TXN_END
    t->count[0] += hit;
    t->count[1] += hit && update;
    t->count[2] += sum & 1; /* keeps the reads live */
}

static long total_cmds = -1;

static int bench_check(bench_thread *ts, int n)
{
    long ops = 0, hits = 0;
    for (int i = 0; i < n; i++) {
        ops += ts[i].ops;
        hits += ts[i].count[0];
    }
    for (long b = 0; b < n_buckets; b++)
        for (const item *it = buckets[b]; it; it = it->next)
            for (long i = 0; i < n_words; i++)
                if (it->value[i] != it->version)
                    return 0;
    if (counters_kind == 0)
        return 1;
    long cmds = get_cmds.v, h = get_hits.v, m = get_misses.v, bytes = bytes_read.v;
#ifndef BENCH_MUTEX
    if (counters_kind == 2) {
        cmds = tm_counter_read(&c_cmds);
        h = tm_counter_read(&c_hits);
        m = tm_counter_read(&c_misses);
        bytes = tm_counter_read(&c_bytes);
    }
#endif
    total_cmds = cmds;
    return cmds == ops && h == hits && h + m == cmds && bytes == 8 * n_words * h;
}

static void bench_report(FILE *out)
{
    fprintf(out, " counters=%s get_cmds=%ld", counter_kinds[counters_kind], total_cmds);
}

int main(int argc, char **argv)
{
    return bench_main(argc, argv, "kvstats", options);
}

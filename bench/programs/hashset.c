/* hashset: an integer set in a fixed array of --buckets chains (unsorted singly linked lists).
 * Operations as in list.c: key uniform in [0, --range), --update-pct percent updates (half
 * inserts, half removes), the rest lookups; the set starts half full. Inserts allocate and
 * removes free inside the transaction.
 * Invariant: every key in its own bucket's chain, no key twice, keys within range;
 * size = initial + inserted - removed.
 */
#include "bench.h"

static long n_buckets = 1024, range = 4096, update_pct = 20;

static const bench_option options[] = {
    {"buckets", BENCH_LONG, &n_buckets, 1, 1 << 24, NULL, "number of hash chains"},
    {"range", BENCH_LONG, &range, 2, 1 << 26, NULL, "keys are drawn from [0, range)"},
    {"update-pct", BENCH_LONG, &update_pct, 0, 100, NULL, "percent of operations that update"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

typedef struct entry {
    long key;
    struct entry *next;
} entry;

static entry **buckets;
static long initial_size;

static inline long bucket_of(long key)
{
    return (long)(bench_hash(key) % (uint64_t)n_buckets);
}

TM_SAFE static int set_contains(entry *const *chain, long key)
{
    for (const entry *e = *chain; e; e = e->next)
        if (e->key == key)
            return 1;
    return 0;
}

/* New entries go to the front of the chain. */
TM_SAFE static int set_insert(entry **chain, long key)
{
    for (const entry *e = *chain; e; e = e->next)
        if (e->key == key)
            return 0;
    entry *e = malloc(sizeof *e);
    e->key = key;
    e->next = *chain;
    *chain = e;
    return 1;
}

TM_SAFE static int set_remove(entry **chain, long key)
{
    for (entry **link = chain; *link; link = &(*link)->next) {
        entry *e = *link;
        if (e->key == key) {
            *link = e->next;
            free(e);
            return 1;
        }
    }
    return 0;
}

static int bench_setup(int threads)
{
    buckets = bench_xalloc((size_t)n_buckets * sizeof *buckets);
    bench_thread r = {.rng = 0x5EED5EED5EEDull};
    while (initial_size < range / 2) {
        long key = bench_rand_below(&r, range);
        initial_size += set_insert(&buckets[bucket_of(key)], key);
    }
    return 0;
}

static void bench_thread_init(bench_thread *t)
{
}

/* count[0]: successful inserts; count[1]: successful removes; count[2]: lookups that hit. */
static inline void bench_op(bench_thread *t)
{
    long key = bench_rand_below(t, range), pick = bench_rand_below(t, 200);
    entry **chain = &buckets[bucket_of(key)];
    int done;
    if (pick < update_pct) {
        TXN_BEGIN
        done = set_insert(chain, key);
        TXN_END
        t->count[0] += done;
    } else if (pick < 2 * update_pct) {
        TXN_BEGIN
        done = set_remove(chain, key);
        TXN_END
        t->count[1] += done;
    } else {
        TXN_BEGIN
        done = set_contains(chain, key);
        TXN_END
        t->count[2] += done;
    }
}

static long final_size = -1, longest_chain = -1;

static int bench_check(bench_thread *ts, int n)
{
    long expect = initial_size, size = 0;
    for (int i = 0; i < n; i++)
        expect += ts[i].count[0] - ts[i].count[1];
    unsigned char *seen = calloc((size_t)range, 1);
    int ok = 1;
    for (long b = 0; b < n_buckets; b++) {
        long len = 0;
        for (const entry *e = buckets[b]; e; e = e->next, len++) {
            if (e->key < 0 || e->key >= range || bucket_of(e->key) != b || seen[e->key]++)
                ok = 0;
            size++;
        }
        if (len > longest_chain)
            longest_chain = len;
    }
    free(seen);
    final_size = size;
    return ok && size == expect;
}

static void bench_report(FILE *out)
{
    fprintf(out, " size=%ld longest_chain=%ld", final_size, longest_chain);
}

int main(int argc, char **argv)
{
    return bench_main(argc, argv, "hashset", options);
}

/* lru: a fixed-capacity LRU cache, a hash table of chains plus a doubly linked recency list.
 * Each operation is one get of a key drawn from a Zipf law over [0, --range) with exponent
 * --zipf (0 = uniform; key k has weight 1/(k+1)^s). A hit moves the item to the front of the
 * list; a miss allocates a new item, puts it in the table and at the front, and when the cache
 * holds more than --capacity items evicts (unlinks and frees) the one at the tail.
 * Invariant: size <= capacity; the list and the table hold the same items (list links agree in
 * both directions, every listed item is in its key's chain, the chains hold `size` items); every
 * hit returned the value stored for its key; hits + misses = operations.
 */
#include "bench.h"

static long capacity = 1024, range = 16384;
static double zipf_s = 1.0;

static const bench_option options[] = {
    {"capacity", BENCH_LONG, &capacity, 1, 1 << 24, NULL, "items the cache holds"},
    {"range", BENCH_LONG, &range, 1, 1 << 26, NULL, "keys are drawn from [0, range)"},
    {"zipf", BENCH_DOUBLE, &zipf_s, 0, 10, NULL, "Zipf exponent s of the key distribution"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

typedef struct item {
    long key, value;
    struct item *prev, *next; /* recency list, most recent first */
    struct item *chain;       /* next item in the same hash bucket */
} item;

static item **table;     /* capacity buckets */
static item *head, *tail; /* the recency list */
static long size;
static double *cdf;      /* cdf[k] = P(key <= k) */

static inline long value_of(long key)
{
    return key * 7 + 3;
}

static inline long bucket_of(long key)
{
    return (long)(bench_hash(key) % (uint64_t)capacity);
}

TM_SAFE static void list_unlink(item *it)
{
    if (it->prev)
        it->prev->next = it->next;
    else
        head = it->next;
    if (it->next)
        it->next->prev = it->prev;
    else
        tail = it->prev;
}

TM_SAFE static void list_push_front(item *it)
{
    it->prev = NULL;
    it->next = head;
    if (head)
        head->prev = it;
    else
        tail = it;
    head = it;
}

/* Removes the least recently used item from the list and from its chain, and frees it. */
TM_SAFE static void evict_tail(void)
{
    item *victim = tail;
    list_unlink(victim);
    item **link = &table[bucket_of(victim->key)];
    while (*link != victim)
        link = &(*link)->chain;
    *link = victim->chain;
    size--;
    free(victim);
}

/* Returns 1 on a hit with the right value, 0 on a miss (the key is then cached), -1 on a hit
 * with a wrong value. */
TM_SAFE static int cache_get(long key, long b)
{
    item *it = table[b];
    while (it && it->key != key)
        it = it->chain;
    if (it) {
        if (head != it) {
            list_unlink(it);
            list_push_front(it);
        }
        return it->value == value_of(key) ? 1 : -1;
    }
    it = malloc(sizeof *it);
    it->key = key;
    it->value = value_of(key);
    it->chain = table[b];
    table[b] = it;
    list_push_front(it);
    if (++size > capacity)
        evict_tail();
    return 0;
}

/* The rank drawn by inverting the cumulative distribution (binary search), outside any
 * transaction. */
static long zipf_key(bench_thread *t)
{
    double u = bench_rand_unit(t);
    long lo = 0, hi = range - 1;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (cdf[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static int bench_setup(int threads)
{
    cdf = malloc((size_t)range * sizeof *cdf);
    double sum = 0;
    for (long k = 0; k < range; k++)
        cdf[k] = sum += pow((double)(k + 1), -zipf_s);
    for (long k = 0; k < range; k++)
        cdf[k] /= sum;
    cdf[range - 1] = 1.0;
    table = bench_xalloc((size_t)capacity * sizeof *table);
    return 0;
}

static void bench_thread_init(bench_thread *t)
{
}

/* count[0]: hits; count[1]: misses; count[2]: hits that returned a wrong value. */
static inline void bench_op(bench_thread *t)
{
    long key = zipf_key(t), b = bucket_of(key);
    int r;
    TXN_BEGIN
    r = cache_get(key, b);
    TXN_END
    t->count[r == 1 ? 0 : r == 0 ? 1 : 2]++;
}

static long hits, misses;

static int in_chain(const item *it)
{
    for (const item *c = table[bucket_of(it->key)]; c; c = c->chain)
        if (c == it)
            return 1;
    return 0;
}

static int bench_check(bench_thread *ts, int n)
{
    for (int i = 0; i < n; i++) {
        hits += ts[i].count[0];
        misses += ts[i].count[1];
        if (ts[i].count[2] != 0 || ts[i].count[0] + ts[i].count[1] != ts[i].ops)
            return 0;
    }
    if (size > capacity || size < 0)
        return 0;
    long listed = 0;
    const item *prev = NULL;
    for (const item *it = head; it; prev = it, it = it->next) {
        if (it->prev != prev || !in_chain(it) || it->value != value_of(it->key) || ++listed > size)
            return 0;
    }
    if (tail != prev || listed != size)
        return 0;
    long chained = 0;
    for (long b = 0; b < capacity; b++)
        for (const item *c = table[b]; c; c = c->chain)
            chained++;
    return chained == size;
}

static void bench_report(FILE *out)
{
    fprintf(out, " size=%ld hit_rate=%.3f", size, hits + misses ? (double)hits / (double)(hits + misses) : 0.0);
}

int main(int argc, char **argv)
{
    return bench_main(argc, argv, "lru", options);
}

/* list: an integer set kept as a sorted singly linked list between two sentinels.
 * Each operation picks a key uniformly in [0, --range) and, with --update-pct percent chance,
 * inserts or removes it (half each); otherwise it looks it up. The set starts half full, so it
 * stays near range/2 elements. Inserts allocate and removes free inside the transaction.
 * Invariant: keys strictly increasing and within range; size = initial + inserted - removed.
 */
#include <limits.h>

#include "bench.h"

static long range = 256, update_pct = 20;

static const bench_option options[] = {
    {"range", BENCH_LONG, &range, 2, 1 << 24, NULL, "keys are drawn from [0, range)"},
    {"update-pct", BENCH_LONG, &update_pct, 0, 100, NULL, "percent of operations that update"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

typedef struct node {
    long key;
    struct node *next;
} node;

static node *head; /* sentinel, key LONG_MIN; the last node is a sentinel with key LONG_MAX */
static long initial_size;

TM_SAFE static int list_contains(long key)
{
    node *n = head->next;
    while (n->key < key)
        n = n->next;
    return n->key == key;
}

TM_SAFE static int list_insert(long key)
{
    node *prev = head, *cur = head->next;
    while (cur->key < key) {
        prev = cur;
        cur = cur->next;
    }
    if (cur->key == key)
        return 0;
    node *n = malloc(sizeof *n);
    n->key = key;
    n->next = cur;
    prev->next = n;
    return 1;
}

TM_SAFE static int list_remove(long key)
{
    node *prev = head, *cur = head->next;
    while (cur->key < key) {
        prev = cur;
        cur = cur->next;
    }
    if (cur->key != key)
        return 0;
    prev->next = cur->next;
    free(cur);
    return 1;
}

static int bench_setup(int threads)
{
    node *tail = malloc(sizeof *tail);
    tail->key = LONG_MAX;
    tail->next = NULL;
    head = malloc(sizeof *head);
    head->key = LONG_MIN;
    head->next = tail;
    bench_thread r = {.rng = 0x5EED5EED5EEDull};
    while (initial_size < range / 2)
        initial_size += list_insert(bench_rand_below(&r, range));
    return 0;
}

static void bench_thread_init(bench_thread *t)
{
}

/* count[0]: successful inserts; count[1]: successful removes; count[2]: lookups that hit. */
static inline void bench_op(bench_thread *t)
{
    long key = bench_rand_below(t, range), pick = bench_rand_below(t, 200);
    int done;
    if (pick < update_pct) {
        TXN_BEGIN
        done = list_insert(key);
        TXN_END
        t->count[0] += done;
    } else if (pick < 2 * update_pct) {
        TXN_BEGIN
        done = list_remove(key);
        TXN_END
        t->count[1] += done;
    } else {
        TXN_BEGIN
        done = list_contains(key);
        TXN_END
        t->count[2] += done;
    }
}

static long final_size = -1;

static int bench_check(bench_thread *ts, int n)
{
    long expect = initial_size, size = 0, last = -1;
    for (int i = 0; i < n; i++)
        expect += ts[i].count[0] - ts[i].count[1];
    for (node *c = head->next; c->key != LONG_MAX; c = c->next) {
        if (c->key <= last || c->key >= range)
            return 0;
        last = c->key;
        size++;
    }
    final_size = size;
    return size == expect;
}

static void bench_report(FILE *out)
{
    fprintf(out, " size=%ld", final_size);
}

int main(int argc, char **argv)
{
    return bench_main(argc, argv, "list", options);
}

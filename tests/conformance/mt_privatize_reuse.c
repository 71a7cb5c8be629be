/* Privatize-then-reuse (the memcached pattern).
 *
 * A small hash table of items. Workers look a random key up in a transaction and, when found,
 * increment the item's value and rewrite its stamp words (an item is consistent when
 * stamp[i] == STAMP(value, i) for every i). The main thread is the
 * reclaimer: each round it unlinks one item in a transaction; the item is then private, so it
 *  - checks the item is consistent and banks its value,
 *  - overwrites the whole item with a poison pattern and re-reads it for a while (a transactional
 *    write that lands after the unlink shows up here),
 *  - then either re-initializes the same memory or frees it and mallocs a new item, and publishes
 *    it under the same key with a transaction.
 * At the end: banked values + live values == the number of increments the workers committed.
 */
// TMTEST: valgrind=yes
// TMTEST: valgrind-div=4
// TMTEST: libitm-div=4
// TMTEST: o0-div=4
#include <sched.h>

#include "harness.h"

#define NBUCKET 8
#define NKEYS 32
#define NSTAMP 5
/* Not a constant fill: GCC 12 at -O2 turns a loop storing one value into every element into a
 * __builtin_memset that the TM instrumentation never sees (uninstrumented stores inside the
 * transaction), which would make any runtime fail this test. */
#define STAMP(v, i) ((v) * 0x10001L + (i))

struct item {
    struct item *next;
    long key;
    long value;
    long stamp[NSTAMP];
};

static struct item *bucket[NBUCKET];
static int stop_flag;

static void *worker(void *arg)
{
    uint64_t rng = 0x1234567ULL * (uint64_t)((intptr_t)arg + 3);
    long mine = 0;
    while (!__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE)) {
        long key = (long)(th_rand(&rng) % NKEYS);
        int found = 0;
        __transaction_atomic {
            struct item *it = bucket[key % NBUCKET];
            while (it && it->key != key)
                it = it->next;
            if (it) {
                long v = ++it->value;
                for (int i = 0; i < NSTAMP; i++)
                    it->stamp[i] = STAMP(v, i);
                found = 1;
            }
        }
        mine += found;
        if ((mine & 63) == 0)
            sched_yield(); /* oversubscribed: let the reclaimer's commits get through */
    }
    return (void *)(intptr_t)mine;
}

static struct item *new_item(struct item *mem, long key)
{
    if (!mem)
        mem = malloc(sizeof *mem);
    CHECK(mem != NULL);
    memset(mem, 0, sizeof *mem);
    mem->key = key;
    for (int i = 0; i < NSTAMP; i++)
        mem->stamp[i] = STAMP(0L, i);
    return mem;
}

static void publish(struct item *it)
{
    __transaction_atomic {
        it->next = bucket[it->key % NBUCKET];
        bucket[it->key % NBUCKET] = it;
    }
}

static struct item *unlink_key(long key)
{
    struct item *found = NULL;
    __transaction_atomic {
        struct item **pp = &bucket[key % NBUCKET];
        while (*pp && (*pp)->key != key)
            pp = &(*pp)->next;
        found = *pp;
        if (found)
            *pp = found->next;
    }
    return found;
}

int main(void)
{
    th_check_runtime();
    int n = th_threads();
    int rounds = (int)th_iters(1000);
    for (long k = 0; k < NKEYS; k++)
        publish(new_item(NULL, k));

    pthread_t *t = calloc((size_t)n, sizeof *t);
    CHECK(t != NULL);
    for (int i = 0; i < n; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) == 0);

    long banked = 0;
    uint64_t rng = 99;
    for (int r = 0; r < rounds; r++) {
        long key = (long)(th_rand(&rng) % NKEYS);
        struct item *it = unlink_key(key);
        CHECK(it != NULL); /* only this thread unlinks, and it always re-publishes */
        volatile struct item *v = it;
        CHECK_EQ(v->key, key);
        long val = v->value;
        for (int i = 0; i < NSTAMP; i++)
            if (v->stamp[i] != STAMP(val, i)) {
                fprintf(stderr, "round %d: unlinked item %ld torn: value %ld, stamp[%d] = %ld\n",
                        r, key, val, i, v->stamp[i]);
                exit(1);
            }
        banked += val;
        memset(it, 0xEE, sizeof *it);
        double end = th_now() + 0.0005;
        int spins = 0;
        do {
            const volatile unsigned char *b = (const volatile unsigned char *)it;
            for (size_t i = 0; i < sizeof *it; i++)
                if (b[i] != 0xEE) {
                    fprintf(stderr, "round %d: byte %zu of a privatized item changed to %#x\n", r,
                            i, b[i]);
                    exit(1);
                }
            if ((++spins & 15) == 0)
                sched_yield();
        } while (th_now() < end);
        if (r & 1) {
            free(it);
            it = new_item(NULL, key);
        } else {
            it = new_item(it, key);
        }
        publish(it);
    }
    __atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
    long committed = 0;
    for (int i = 0; i < n; i++) {
        void *ret;
        CHECK(pthread_join(t[i], &ret) == 0);
        committed += (long)(intptr_t)ret;
    }
    free(t);

    long live = 0;
    int count = 0;
    for (int b = 0; b < NBUCKET; b++)
        for (struct item *it = bucket[b], *nx; it; it = nx) {
            nx = it->next;
            for (int i = 0; i < NSTAMP; i++)
                CHECK_EQ(it->stamp[i], STAMP(it->value, i));
            live += it->value;
            count++;
            free(it);
        }
    CHECK_EQ(count, NKEYS);
    CHECK_EQ(banked + live, committed);
    CHECK(banked > 0);
    printf("mt_privatize_reuse: %d workers, %d rounds, %ld increments (%ld banked)\n", n, rounds,
           committed, banked);
    return 0;
}

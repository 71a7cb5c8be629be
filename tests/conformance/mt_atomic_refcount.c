/* tm_atomic_*: reference counts taken and released by plain code and by transactions at once.
 * SLOTS shared slots each hold an object (refs starts at 1: the slot's reference). Workers:
 *  - take a reference inside a transaction (read the slot, tm_atomic_fetch_add its count), use
 *    the object outside, and sometimes pass it on: a plain-code tm_atomic_fetch_add clones the
 *    reference, a plain-code or transactional tm_atomic_fetch_sub gives each back; whoever takes
 *    a count to zero retires the object (marks it dead: once, and nobody may see it after);
 *  - replace a slot's object in a transaction and give back the slot's reference.
 * Also: compare-exchange races (each of CAS_WORDS words claimed once, plain or in a transaction,
 * exactly one winner each), pointer exchange, and operations in cancelled transactions leave no
 * trace. At the end every object ever made is retired exactly once. Then a count added to by
 * plain tm_atomic_fetch_add in some threads while transactions in the others read it, work, and
 * write it back plus one: exact at the end (a plain atomic that bypassed the runtime would be
 * lost in the transactions' read-to-write windows). */
// TMTEST: threads=2
// TMTEST: valgrind=yes
// TMTEST: valgrind-div=4
// TMTEST: o0-div=4
#include "harness.h"
#include <tmkit.h>

#define SLOTS 8
#define POOL 200000
#define CAS_WORDS 4096

struct obj {
    long refs;
    long id;
    int dead;
};

static struct obj pool[POOL];
static long next_obj; /* bookkeeping (builtin atomics: not under test) */
static struct obj *slot[SLOTS];
static long hot[8];
static long retired, bad, cas_word[CAS_WORDS], cas_wins, iters;

static struct obj *make(void)
{
    long i = __atomic_fetch_add(&next_obj, 1, __ATOMIC_RELAXED);
    CHECK(i < POOL);
    struct obj *o = &pool[i];
    o->refs = 1;
    o->id = i;
    return o;
}

static void retire(struct obj *o)
{
    if (__atomic_exchange_n(&o->dead, 1, __ATOMIC_ACQ_REL))
        __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED); /* retired twice */
    __atomic_fetch_add(&retired, 1, __ATOMIC_RELAXED);
}

static void put(struct obj *o, int in_tx)
{
    long before;
    if (in_tx) {
        __transaction_atomic { before = tm_atomic_fetch_sub(&o->refs, 1); }
    } else {
        before = tm_atomic_fetch_sub(&o->refs, 1);
    }
    if (before == 1)
        retire(o);
    else if (before < 1)
        __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
}

static void use(struct obj *o)
{
    if (__atomic_load_n(&o->dead, __ATOMIC_ACQUIRE) || o->id != o - pool)
        __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
}

static void *worker(void *arg)
{
    uint64_t seed = (uint64_t)(intptr_t)arg * 2654435761u + 7;
    long wins = 0;
    for (long i = 0; i < iters; i++) {
        unsigned r = (unsigned)th_rand(&seed);
        int k = (int)(r >> 4) % SLOTS;
        if (r % 16 == 0) { /* replace the slot's object */
            struct obj *fresh = make(), *old;
            __transaction_atomic {
                old = slot[k];
                slot[k] = fresh;
            }
            put(old, r & 32);
            continue;
        }
        struct obj *o;
        __transaction_atomic {
            o = slot[k];
            tm_atomic_fetch_add(&o->refs, 1);
            /* more work after the count's update, on a hot word: conflicts, aborts, and (under
             * write-through algorithms) undo of the count, which must not undo anyone else's */
            for (int j = 0; j < 8; j++)
                hot[j] += slot[(k + j) % SLOTS] != NULL;
        }
        use(o);
        if (r % 4 == 1) { /* a second reference, taken by plain code */
            tm_atomic_fetch_add(&o->refs, 1);
            use(o);
            put(o, r & 64);
        }
        put(o, r & 128);
        /* claim a compare-exchange word */
        long w = (long)((r >> 8) % CAS_WORDS), expected = 0, me = (long)(intptr_t)arg + 1;
        int won;
        if (r & 256) {
            won = tm_atomic_compare_exchange(&cas_word[w], &expected, me);
        } else {
            __transaction_atomic { won = tm_atomic_compare_exchange(&cas_word[w], &expected, me); }
        }
        if (won)
            wins++;
        else if (expected == 0)
            __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED); /* failed, yet saw it free */
    }
    __atomic_fetch_add(&cas_wins, wins, __ATOMIC_RELAXED);
    return NULL;
}

static long total, filler[64], adds;

static void *adder(void *arg)
{
    long id = (long)(intptr_t)arg;
    for (long i = 0; i < adds; i++) {
        if (id & 1) {
            tm_atomic_fetch_add(&total, 1);
        } else {
            __transaction_atomic {
                long v = total, s = 0;
                for (int j = 0; j < 64; j++) /* a window between the read and the write */
                    s += filler[j];
                total = v + 1 + s;
            }
        }
    }
    return NULL;
}

int main(void)
{
    th_check_runtime();
    iters = th_iters(100000) / th_threads();
    for (int k = 0; k < SLOTS; k++)
        slot[k] = make();
    th_run(th_threads(), worker);
    for (int k = 0; k < SLOTS; k++)
        put(slot[k], k & 1);
    CHECK_EQ(bad, 0);
    CHECK_EQ(retired, next_obj);
    for (long i = 0; i < next_obj; i++)
        CHECK(pool[i].dead == 1 && pool[i].refs == 0);
    long claimed = 0;
    for (int w = 0; w < CAS_WORDS; w++)
        claimed += cas_word[w] != 0;
    CHECK_EQ(claimed, cas_wins);

    adds = th_iters(1000000) / th_threads();
    th_run(th_threads(), adder);
    CHECK_EQ(total, adds * th_threads());

    /* cancelled transactions leave no trace */
    long x = 5;
    int y = 7;
    void *p = &x;
    __transaction_atomic {
        tm_atomic_fetch_add(&x, 10);
        tm_atomic_fetch_or(&y, 8);
        tm_atomic_store(&p, NULL);
        __transaction_cancel;
    }
    CHECK_EQ(x, 5);
    CHECK_EQ(y, 7);
    CHECK(p == &x);
    /* every operation, plain and inside a transaction */
    unsigned long u = 6;
    CHECK_EQ(tm_atomic_fetch_and(&u, 3ul), 6ul);
    CHECK_EQ(tm_atomic_exchange(&u, 9ul), 2ul);
    __transaction_atomic {
        tm_atomic_fetch_sub(&u, 4ul);
        tm_atomic_store(&y, 1);
    }
    CHECK_EQ(tm_atomic_load(&u), 5ul);
    CHECK_EQ(tm_atomic_load(&y), 1);
    long *q = NULL;
    CHECK(!tm_atomic_compare_exchange(&p, (void **)&q, NULL) && q == &x);
    puts("ok");
    return 0;
}

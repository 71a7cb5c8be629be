/* tmkit/counter.h — deferred commutative counters (included by tmkit.h).
 *
 *     static tm_counter_t hits = TM_COUNTER_INITIALIZER;
 *     __transaction_atomic {
 *         item *it = lookup(key);              // a big transaction...
 *         tm_counter_add(&hits, 1);            // ...that bumps a hot statistics counter
 *     }
 *     long n = tm_counter_read(&hits);
 *
 * tm_counter_add inside a transaction records the addition and applies it when the transaction
 * commits, outside its read and write sets: transactions that only add to the same counter
 * never conflict, and a big transaction does not abort because of a hot counter. An attempt
 * that rolls back drops its additions. Outside a transaction it adds at once.
 * tm_counter_read returns the sum of the additions of committed transactions (every one that
 * committed before the read began, and maybe some that commit during it), plus, inside a
 * transaction, the transaction's own pending additions; the read is not part of the
 * transaction's read set. tm_counter_snapshot reads several counters at once, with each
 * transaction's additions to all of them included or none (two counters always added to
 * together read equal).
 * On tmkit each thread adds into its own slots (no shared cache line); on GCC's libitm (the
 * tmkit_* symbols absent) a counter is a plain transactional variable: correct, and as
 * contended as before. */
#ifndef TMKIT_COUNTER_H
#define TMKIT_COUNTER_H

#include "compat.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tm_counter {
    long fallback;   /* the value under GCC's libitm */
    unsigned int id; /* tmkit: assigned at first use */
    unsigned int pad_;
} tm_counter_t;
#define TM_COUNTER_INITIALIZER {0, 0, 0}

void tmkit_counter_add(tm_counter_t *c, long delta) __attribute__((weak, transaction_pure));
long tmkit_counter_read(tm_counter_t *c) __attribute__((weak, transaction_pure));
void tmkit_counter_snapshot(tm_counter_t *const *c, long *values, int n)
    __attribute__((weak, transaction_pure));

/* The fallbacks hold a transaction of their own and are never inlined: GCC 12 attaches a
 * __transaction_cancel that follows an inlined nested transaction to that transaction (the
 * program then commits outside any transaction, on libitm as on tmkit). */
static __attribute__((transaction_safe, noinline, unused)) void
tmkit__counter_add_tx(tm_counter_t *c, long delta)
{
    __transaction_atomic { c->fallback += delta; }
}

static __attribute__((transaction_safe, noinline, unused)) void
tmkit__counter_snapshot_tx(tm_counter_t *const *c, long *values, int n)
{
    __transaction_atomic {
        for (int i = 0; i < n; i++)
            values[i] = c[i]->fallback;
    }
}

static inline __attribute__((transaction_safe, unused)) void tm_counter_add(tm_counter_t *c, long delta)
{
    if (tmkit_counter_add)
        tmkit_counter_add(c, delta);
    else
        tmkit__counter_add_tx(c, delta);
}

static inline __attribute__((transaction_safe, unused)) void
tm_counter_snapshot(tm_counter_t *const *c, long *values, int n)
{
    if (tmkit_counter_snapshot)
        tmkit_counter_snapshot(c, values, n);
    else
        tmkit__counter_snapshot_tx(c, values, n);
}

static inline __attribute__((transaction_safe, unused)) long tm_counter_read(tm_counter_t *c)
{
    long v;
    if (tmkit_counter_read)
        return tmkit_counter_read(c);
    tmkit__counter_snapshot_tx(&c, &v, 1);
    return v;
}

#ifdef __cplusplus
}
#endif
#endif

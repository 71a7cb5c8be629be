/* tm_counter_t: deferred commutative counters (include/tmkit/counter.h).
 *
 * A transaction's tm_counter_add is not a write of the counter: it goes to the adding thread's
 * own share of the counter, outside the transaction's read and write sets, so transactions that
 * only add to the same counter never conflict, and a large transaction does not inherit a hot
 * counter's contention (memcached's statistics counters made its big cache transactions abort:
 * "performance does not compose").
 *
 * Values are kept per descriptor (per thread), like per-CPU counters: each descriptor has a
 * directory of pages of 64-bit slots indexed by the counter's id (assigned at first use), and
 * only its owner writes them. No cache line is shared between threads that add; a reader sums
 * every descriptor's slot (O(threads ever alive)). Descriptors outlive their threads in the pool
 * and keep their slots, so the sums stay exact when threads exit.
 *
 * A transaction adds in place, at once, under the descriptor's sequence lock (ext.cseq), which
 * it opens (odd) at its first addition and closes when it commits (its one TM_ACT_COUNTER commit
 * action), so a reader summing the descriptors sees each transaction's additions all or none,
 * for one counter or several (tm_counter_snapshot), and never an attempt's that rolls back:
 * each addition logs the slot and its value before (ext.pend), and a rollback puts the values
 * back, newest first, to the attempt's start or a cancelled nested transaction's (checkpoints
 * remember the log's length), closing the lock when the log empties. An addition is a few loads
 * and stores; the commit one store (the deferred list this replaces, merged and applied at
 * commit, cost ~130 instructions an addition: kvstats-tm 571 vs 191 of plain counters).
 * The price: a reader waits while a transaction that added is in flight. A reader inside a
 * transaction that waits long restarts its transaction rather than wait (the adder may be
 * waiting for it: to go serial, or for quiescence).
 * What a read returns: the sum of the additions of a set of committed transactions that
 * includes every transaction committed before the read began; reads are not part of the
 * reading transaction's read set (a transaction that reads a counter does not conflict with
 * adders), and see the transaction's own additions. */
#include <stdlib.h>

#include "ext.h"

#define TM_CPAGE_BITS 9 /* 512 counters (4 KiB) a page */
#define TM_CPAGE (1u << TM_CPAGE_BITS)
#define TM_CPAGES 256   /* up to 131071 counters in a process */

typedef struct tm_counter_dir {
    _Atomic(_Atomic int64_t *) page[TM_CPAGES];
} tm_counter_dir;

/* tm_counter_t's layout (include/tmkit/counter.h): the runtime uses only `id`. */
typedef struct tm_counter_pub {
    long fallback;        /* the value when the runtime has no counters (GCC's libitm) */
    _Atomic uint32_t id;  /* 0 until the first use */
    uint32_t pad_;
} tm_counter_pub;

static _Atomic uint32_t tm_counter_ids = 1;

static uint32_t tm_counter_id(tm_counter_pub *c)
{
    uint32_t id = atomic_load_explicit(&c->id, memory_order_acquire);
    if (TM_LIKELY(id))
        return id;
    uint32_t fresh = atomic_fetch_add_explicit(&tm_counter_ids, 1, memory_order_relaxed);
    if (fresh >= TM_CPAGES * TM_CPAGE)
        tm_fatal("more than %u tm_counter_t in one process", TM_CPAGES * TM_CPAGE - 1);
    /* acq_rel: whoever loses the race uses the winner's id (an unused one is wasted). */
    if (atomic_compare_exchange_strong_explicit(&c->id, &id, fresh, memory_order_acq_rel,
                                                memory_order_acquire))
        return fresh;
    return id;
}

/* The owner's slot of counter `id`, allocated on first use. */
static _Atomic int64_t *tm_counter_slot(tm_tx *tx, uint32_t id)
{
    tm_counter_dir *d = atomic_load_explicit(&tx->ext.counters, memory_order_relaxed);
    if (TM_UNLIKELY(!d)) {
        d = calloc(1, sizeof *d);
        if (!d)
            tm_fatal("out of memory for counters");
        /* release: readers that load the pointer see a zeroed directory. */
        atomic_store_explicit(&tx->ext.counters, d, memory_order_release);
    }
    _Atomic int64_t *p = atomic_load_explicit(&d->page[id >> TM_CPAGE_BITS], memory_order_relaxed);
    if (TM_UNLIKELY(!p)) {
        p = calloc(TM_CPAGE, sizeof *p);
        if (!p)
            tm_fatal("out of memory for counters");
        atomic_store_explicit(&d->page[id >> TM_CPAGE_BITS], p, memory_order_release);
    }
    return &p[id & (TM_CPAGE - 1)];
}

/* The owner's side of the sequence lock: odd while slots change. Only the owner writes. */
static void tm_cseq_open(tm_tx *tx)
{
    uint32_t s = atomic_load_explicit(&tx->ext.cseq, memory_order_relaxed);
    atomic_store_explicit(&tx->ext.cseq, s + 1, memory_order_relaxed);
    /* release fence: the odd number is visible before any slot store below. */
    atomic_thread_fence(memory_order_release);
}

static void tm_cseq_close(tm_tx *tx)
{
    uint32_t s = atomic_load_explicit(&tx->ext.cseq, memory_order_relaxed);
    /* release: the slot stores happen-before a reader that sees the even number. */
    atomic_store_explicit(&tx->ext.cseq, s + 1, memory_order_release);
}

typedef struct tm_counter_pend {
    _Atomic int64_t *slot;
    int64_t before; /* the slot's value before this addition */
} tm_counter_pend;

/* relaxed: only the owner writes its slots; readers order through the sequence lock. */
static inline void tm_slot_set(_Atomic int64_t *slot, int64_t v)
{
    atomic_store_explicit(slot, v, memory_order_relaxed);
}

static inline int64_t tm_slot_get(_Atomic int64_t *slot)
{
    return atomic_load_explicit(slot, memory_order_relaxed);
}

/* The commit of a transaction that added: its additions become visible, all at once. */
void tm_counters_apply(tm_tx *tx)
{
    if (tx->ext.npend) {
        tx->ext.npend = 0;
        tm_cseq_close(tx);
    }
}

/* A rollback to `mark` (0: the whole attempt): the slots as they were, newest first. */
void tm_counters_undo(tm_tx *tx, size_t mark)
{
    tm_ext_state *e = &tx->ext;
    if (e->npend <= mark)
        return;
    for (size_t i = e->npend; i-- > mark;)
        tm_slot_set(e->pend[i].slot, e->pend[i].before);
    e->npend = mark;
    if (mark == 0)
        tm_cseq_close(tx);
}

/* An addition of a transaction, logged; the lock is open. */
static inline void tm_counter_add_logged(tm_ext_state *e, _Atomic int64_t *slot, int64_t delta)
{
    int64_t before = tm_slot_get(slot);
    e->pend[e->npend] = (tm_counter_pend){slot, before};
    /* The log entry before the store: a fork in between leaves a child that restores it. */
    atomic_store_explicit((_Atomic size_t *)&e->npend, e->npend + 1, memory_order_relaxed);
    atomic_signal_fence(memory_order_seq_cst);
    tm_slot_set(slot, before + delta);
}

/* Everything but the common case: no descriptor or slot yet, outside a transaction, the
 * attempt's first addition, a full log. */
static __attribute__((noinline)) void tm_counter_add_slow(tm_counter_pub *counter, int64_t delta)
{
    tm_tx *tx = tm_self();
    tm_ext_state *e = &tx->ext;
    _Atomic int64_t *slot = tm_counter_slot(tx, tm_counter_id(counter));
    if (tx->nesting == 0) { /* outside a transaction: an addition on its own */
        tm_cseq_open(tx);
        tm_slot_set(slot, tm_slot_get(slot) + delta);
        tm_cseq_close(tx);
        return;
    }
    if (e->npend == 0) { /* the first of this attempt: open the lock until commit */
        tm_cseq_open(tx);
        tm_action_add(tx, TM_ACT_COUNTER, NULL, NULL, 0);
    }
    if (TM_UNLIKELY(e->npend == e->cap_pend)) {
        e->cap_pend = e->cap_pend ? 2 * e->cap_pend : 16;
        e->pend = tm_xrealloc(e->pend, e->cap_pend * sizeof *e->pend, "counter additions");
    }
    tm_counter_add_logged(e, slot, delta);
}

TM_EXPORT void tmkit_counter_add(void *counter, long delta)
{
    tm_counter_pub *c = counter;
    tm_tx *tx = tm_cur;
    uint32_t id = atomic_load_explicit(&c->id, memory_order_acquire); /* as tm_counter_id */
    if (TM_LIKELY(tx && id && tx->nesting && tx->ext.npend && tx->ext.npend < tx->ext.cap_pend)) {
        tm_counter_dir *d = atomic_load_explicit(&tx->ext.counters, memory_order_relaxed);
        _Atomic int64_t *p = atomic_load_explicit(&d->page[id >> TM_CPAGE_BITS], memory_order_relaxed);
        if (TM_LIKELY(p)) {
            tm_counter_add_logged(&tx->ext, &p[id & (TM_CPAGE - 1)], delta);
            return;
        }
    }
    tm_counter_add_slow(c, delta);
}

/* Spins a reader waits for a descriptor's transaction before it restarts its own (a reader
 * inside a transaction) or starts yielding the processor (any reader). */
#define TM_CSEQ_SPINS 4096

/* Reads n counters of descriptor t consistently (sequence lock), adding them to out. `self`:
 * the reader's own descriptor, whose slots it reads as they are (with its own additions). */
static void tm_counters_of(tm_tx *t, tm_tx *self, const uint32_t *ids, int64_t *out, int n)
{
    tm_counter_dir *d = atomic_load_explicit(&t->ext.counters, memory_order_acquire);
    if (!d)
        return;
    int64_t v[n];
    for (unsigned spins = 0;; spins++) {
        /* acquire: pairs with tm_cseq_close's release. */
        uint32_t s0 = atomic_load_explicit(&t->ext.cseq, memory_order_acquire);
        if ((s0 & 1) && t != self) {
            if (spins < TM_CSEQ_SPINS) {
                __builtin_ia32_pause();
            } else if (self && self->nesting && !(self->flags & TM_F_IRREVOCABLE)) {
                /* The adder may wait for this transaction (to go serial, or for quiescence):
                 * end it, and read again in the next attempt. */
                tm_restart(self, TM_ABORT_RETRY);
            } else {
                tm_cpu_relax(64);
            }
            continue;
        }
        for (int i = 0; i < n; i++) {
            _Atomic int64_t *p = ids[i] ? atomic_load_explicit(&d->page[ids[i] >> TM_CPAGE_BITS],
                                                               memory_order_acquire) : NULL;
            v[i] = p ? atomic_load_explicit(&p[ids[i] & (TM_CPAGE - 1)], memory_order_relaxed) : 0;
        }
        if (t == self)
            break;
        /* acquire fence: the slot loads above complete before the re-check. */
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&t->ext.cseq, memory_order_relaxed) == s0)
            break;
    }
    for (int i = 0; i < n; i++)
        out[i] += v[i];
}

TM_EXPORT void tmkit_counter_snapshot(void *const *counters, long *values, int n)
{
    if (n <= 0)
        return;
    uint32_t ids[n];
    int64_t sum[n];
    for (int i = 0; i < n; i++) {
        /* Assigned now if still unused, so every counter of the snapshot is read by id: one
         * read as "no id yet, 0" beside another that got its id meanwhile would mix times. */
        ids[i] = tm_counter_id(counters[i]);
        sum[i] = 0;
    }
    tm_tx *self = tm_cur;
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_acquire))
        tm_counters_of(t, self, ids, sum, n);
    for (int i = 0; i < n; i++)
        values[i] = (long)sum[i];
}

TM_EXPORT long tmkit_counter_read(void *counter)
{
    long v;
    tmkit_counter_snapshot(&counter, &v, 1);
    return v;
}

/* fork(): the other threads are gone with their transactions: what those added is undone
 * (the forking thread's own transaction goes on in the child). */
void tm_counters_fork_child(void)
{
    tm_tx *self = tm_cur;
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_relaxed)) {
        if (t == self)
            continue;
        for (size_t i = t->ext.npend; i-- > 0;)
            tm_slot_set(t->ext.pend[i].slot, t->ext.pend[i].before);
        t->ext.npend = 0;
        uint32_t s = atomic_load_explicit(&t->ext.cseq, memory_order_relaxed);
        atomic_store_explicit(&t->ext.cseq, s & ~1u, memory_order_relaxed);
    }
}

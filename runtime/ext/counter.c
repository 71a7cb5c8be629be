/* tm_counter_t: deferred commutative counters (include/tmkit/counter.h).
 *
 * A transaction's tm_counter_add is not a write: it is recorded in the descriptor's pending
 * list (ext.pend: one entry per counter, additions merged) and applied when the transaction
 * commits, outside its read and write sets, so transactions that only add to the same counter
 * never conflict, and a large transaction does not inherit a hot counter's contention
 * (memcached's statistics counters made its big cache transactions abort: "performance does
 * not compose"). The first addition of a transaction registers one commit action
 * (TM_ACT_COUNTER) that applies the list, so commits without counters pay nothing. An attempt
 * that rolls back drops its additions (the list is cut back with the action list); a cancelled
 * nested transaction drops its own (checkpoints remember the list's length).
 *
 * Values are kept per descriptor (per thread), like per-CPU counters: each descriptor has a
 * directory of pages of 64-bit slots indexed by the counter's id (assigned at first use), and
 * only its owner writes them. A commit applies all of its transaction's additions under the
 * descriptor's sequence lock (ext.cseq), so a reader summing the descriptors sees each
 * transaction's additions all or none, for one counter or several (tm_counter_snapshot).
 * No cache line is shared between threads that add; a reader walks every descriptor
 * (O(threads ever alive)). Descriptors outlive their threads in the pool and keep their slots,
 * so the sums stay exact when threads exit.
 * What a read returns: the sum of the additions of a set of committed transactions that
 * includes every transaction committed before the read began; reads are not part of the
 * reading transaction's read set (a transaction that reads a counter does not conflict with
 * adders), and see the transaction's own pending additions. */
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

static void tm_counter_bump(tm_tx *tx, tm_counter_pub *c, int64_t delta)
{
    _Atomic int64_t *slot = tm_counter_slot(tx, tm_counter_id(c));
    /* relaxed: only the owner writes the slot; readers order through the sequence lock. */
    atomic_store_explicit(slot, atomic_load_explicit(slot, memory_order_relaxed) + delta,
                          memory_order_relaxed);
}

typedef struct tm_counter_pend {
    tm_counter_pub *c;
    int64_t delta;
} tm_counter_pend;

void tm_counters_apply(tm_tx *tx)
{
    tm_ext_state *e = &tx->ext;
    tm_cseq_open(tx);
    for (size_t i = 0; i < e->npend; i++)
        tm_counter_bump(tx, e->pend[i].c, e->pend[i].delta);
    tm_cseq_close(tx);
    e->npend = 0;
}

TM_EXPORT void tmkit_counter_add(void *counter, long delta)
{
    tm_tx *tx = tm_self();
    tm_ext_state *e = &tx->ext;
    if (tx->nesting == 0) {
        tm_cseq_open(tx);
        tm_counter_bump(tx, counter, delta);
        tm_cseq_close(tx);
        return;
    }
    /* The pending list belongs to this transaction: merge into its entry for the counter. A
     * nested transaction's additions to a counter the parent added to first get an entry of
     * their own (after the checkpoint's mark), so cancelling it drops only them. */
    size_t mark = tx->n_cps > 1 ? tx->cps[tx->n_cps - 1].counters_mark : 0;
    for (size_t i = e->npend; i-- > mark;)
        if (e->pend[i].c == counter) {
            e->pend[i].delta += delta;
            return;
        }
    if (e->npend == 0) /* the first of this transaction: the action that applies the list */
        tm_action_add(tx, TM_ACT_COUNTER, NULL, NULL, 0);
    if (TM_UNLIKELY(e->npend == e->cap_pend)) {
        e->cap_pend = e->cap_pend ? 2 * e->cap_pend : 16;
        e->pend = tm_xrealloc(e->pend, e->cap_pend * sizeof *e->pend, "counter additions");
    }
    e->pend[e->npend++] = (tm_counter_pend){counter, delta};
}

/* Reads n counters of one descriptor consistently (sequence lock), adding them to out. */
static void tm_counters_of(tm_tx *t, const uint32_t *ids, int64_t *out, int n)
{
    tm_counter_dir *d = atomic_load_explicit(&t->ext.counters, memory_order_acquire);
    if (!d)
        return;
    int64_t v[n];
    for (;;) {
        /* acquire: pairs with tm_cseq_close's release. */
        uint32_t s0 = atomic_load_explicit(&t->ext.cseq, memory_order_acquire);
        if (s0 & 1) {
            __builtin_ia32_pause();
            continue;
        }
        for (int i = 0; i < n; i++) {
            _Atomic int64_t *p = ids[i] ? atomic_load_explicit(&d->page[ids[i] >> TM_CPAGE_BITS],
                                                               memory_order_acquire) : NULL;
            v[i] = p ? atomic_load_explicit(&p[ids[i] & (TM_CPAGE - 1)], memory_order_relaxed) : 0;
        }
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
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_acquire))
        tm_counters_of(t, ids, sum, n);
    /* The calling transaction's own additions, not applied yet. */
    tm_tx *tx = tm_cur;
    if (tx && tx->nesting)
        for (size_t k = 0; k < tx->ext.npend; k++)
            for (int i = 0; i < n; i++)
                if (tx->ext.pend[k].c == counters[i])
                    sum[i] += tx->ext.pend[k].delta;
    for (int i = 0; i < n; i++)
        values[i] = (long)sum[i];
}

TM_EXPORT long tmkit_counter_read(void *counter)
{
    long v;
    tmkit_counter_snapshot(&counter, &v, 1);
    return v;
}

/* fork(): a parent thread may have been in the middle of an apply. */
void tm_counters_fork_child(void)
{
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_relaxed)) {
        uint32_t s = atomic_load_explicit(&t->ext.cseq, memory_order_relaxed);
        atomic_store_explicit(&t->ext.cseq, s & ~1u, memory_order_relaxed);
    }
}

/* NOrec: one global sequence lock, redo log, value-based validation.
 *
 * Follows Dalessandro, Spear and Scott, "NOrec: Streamlining STM by Abolishing Ownership
 * Records" (PPoPP 2010).
 * Invariants:
 *  - norec_seq is even when no writer is writing back; a committing writer CASes it from its
 *    (validated) snapshot to snapshot + 1, writes back, then stores snapshot + 2.
 *  - Every value in the read log equalled memory at time `snapshot` (checked by re-reading all
 *    of them between two equal even readings of norec_seq), so the transaction always sees a
 *    consistent state (opacity) and its reads need no per-location metadata.
 *  - Writes go to the redo log only; memory changes only during a commit under the sequence
 *    lock, so no transaction ever writes memory another one has privatized.
 *  - Every value is checked against the clock before the program sees it, so a doomed reader
 *    never uses privatized data; its one hazard, a load from memory the privatizer unmapped,
 *    restarts it (norec_doomed, core/faultguard.c). tx->owned is 1 only during a write-back.
 */
#include <string.h>

#include "algo.h"
#include "fast.h"

tm_line64 tm_norec_seq_line;
#define norec_seq tm_norec_seq

static uint64_t norec_wait_even(void)
{
    uint64_t v;
    /* acquire: pairs with the release store ending a write-back. */
    for (unsigned i = 0; (v = atomic_load_explicit(&norec_seq, memory_order_acquire)) & 1; i++)
        tm_cpu_relax(i);
    return v;
}

/* Re-checks the read log against memory; on success moves the snapshot forward. */
static bool norec_validate(tm_tx *tx)
{
    for (;;) {
        uint64_t s = norec_wait_even();
        if (!tm_rset_valid(&tx->rset))
            return false;
        /* acquire fence: the value loads above happen before the re-read of the clock. */
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&norec_seq, memory_order_relaxed) == s) {
            tx->snapshot = s;
            /* release: pairs with the acquire loads in tm_quiesce. */
            TM_LINES(TM_LK_DESC, &tx->shared_ts);
            atomic_store_explicit(&tx->shared_ts, s, memory_order_release);
            return true;
        }
    }
}

static void norec_begin(tm_tx *tx)
{
    tx->owned = 0;
    tm_dead_begin(tx);
    tx->snapshot = norec_wait_even();
    TM_LINES(TM_LK_DESC, &tx->shared_ts);
    atomic_store_explicit(&tx->shared_ts, tx->snapshot, memory_order_release);
}

static void norec_read(tm_tx *tx, void *dst, const void *src, size_t len)
{
    TM_LINES_PHASE(TM_LP_READ);
    if (tm_dead_stack(tx, src, len) && tm_dead_read(tx, dst, src, len))
        return; /* the attempt's own dead frames (core/txn.c) */
    bool buffered = tx->wset.n && tm_wset_maybe(&tx->wset, src, len);
    if (buffered) {
        unsigned char probe[64];
        if (len <= sizeof probe && tm_wset_overlay(&tx->wset, probe, src, len)) {
            memcpy(dst, probe, len); /* read-after-write: entirely from the redo log */
            /* Still a point where a doomed attempt must find out: one whose reads all hit its
             * own writes would never look at the clock again. It happens: a commit frees a node
             * (NOrec does not quiesce: faultguard.c), malloc hands it to an older attempt that
             * still sees it linked, which links its "new" node to itself and walks the loop
             * from its redo log forever (transmem's red-black tree at 8 threads;
             * tests/conformance/mt_privatize_alloc_reuse.c). relaxed: a hint, the validation
             * orders. */
            if (atomic_load_explicit(&norec_seq, memory_order_relaxed) != tx->snapshot &&
                !norec_validate(tx))
                tm_restart(tx, TM_ABORT_READ_CONFLICT);
            return;
        }
    }
    for (;;) {
        memcpy(dst, src, len);
        /* acquire fence: orders the loads above before the clock check (seqlock reader). */
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&norec_seq, memory_order_relaxed) == tx->snapshot)
            break;
        if (!norec_validate(tx))
            tm_restart(tx, TM_ABORT_READ_CONFLICT);
    }
    tm_rset_push(&tx->rset, src, dst, len);
    if (buffered)
        tm_wset_overlay(&tx->wset, dst, src, len);
}

static void norec_write(tm_tx *tx, void *dst, const void *src, size_t len)
{
    if (tm_dead_stack(tx, dst, len)) /* in place: the attempt's own dead frames (core/txn.c) */
        tm_dead_write(tx, dst, src, len);
    else
        tm_wset_write(&tx->wset, dst, src, len);
}

static bool norec_commit(tm_tx *tx, tm_skip skip, uint64_t *ts)
{
    *ts = 0;
    if (tx->wset.n == 0)
        return true; /* read-only: consistent as of the last read */
    for (;;) {
        uint64_t expected = tx->snapshot;
        /* acquire on success: later write-back stores stay after the lock (plus the release
         * fence below for readers' seqlock check). */
        TM_LINES(TM_LK_CLOCK, &norec_seq);
        if (atomic_compare_exchange_strong_explicit(&norec_seq, &expected, expected + 1,
                                                    memory_order_acquire, memory_order_relaxed))
            break;
        if (!norec_validate(tx))
            return false;
    }
    atomic_thread_fence(memory_order_release);
    tx->owned = 1;
    tm_wset_writeback(&tx->wset, skip);
    tx->owned = 0;
    /* release: the write-back happens-before any transaction that reads the new sequence. */
    TM_LINES(TM_LK_CLOCK, &norec_seq);
    atomic_store_explicit(&norec_seq, tx->snapshot + 2, memory_order_release);
    *ts = tx->snapshot + 2;
    return true;
}

static bool norec_upgrade(tm_tx *tx, tm_skip skip)
{
    /* Every other transaction is drained, so memory is stable: validate, then publish. */
    if (!tm_rset_valid(&tx->rset))
        return false;
    if (tx->wset.n) {
        uint64_t s = atomic_load_explicit(&norec_seq, memory_order_relaxed);
        TM_LINES(TM_LK_CLOCK, &norec_seq); /* and once more below: one line */
        atomic_store_explicit(&norec_seq, s + 1, memory_order_relaxed);
        atomic_thread_fence(memory_order_release);
        tx->owned = 1;
        tm_wset_writeback(&tx->wset, skip);
        tx->owned = 0;
        /* release: as at commit. */
        atomic_store_explicit(&norec_seq, s + 2, memory_order_release);
    }
    return true;
}

/* A fault handler's question (core/faultguard.c): has a writer committed since our snapshot?
 * Then the attempt would revalidate, and a load that faulted read memory privatized since. */
static bool norec_doomed(const tm_tx *tx)
{
    /* acquire: the fault observed the privatizer's unmapping, which followed its commit. */
    return !tx->owned && atomic_load_explicit(&norec_seq, memory_order_acquire) != tx->snapshot;
}

const tm_dispatch tm_disp_norec = {
    .name = "norec",
    .mode = TM_MODE_NOREC,
    .read = norec_read,
    .write = norec_write,
    .begin = norec_begin,
    .commit = norec_commit,
    .rollback = NULL,
    .upgrade = norec_upgrade,
    .doomed = norec_doomed,
};

const tm_algo tm_algo_norec = {
    .name = "norec",
    .summary = "global sequence lock, redo log, value-based validation",
    .disp = &tm_disp_norec,
};

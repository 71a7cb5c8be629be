/* orec_lazy: ownership records, commit-time locking, redo log, snapshot extension.
 *
 * Follows LSA (Riegel, Felber, Fetzer, "A Lazy Snapshot Algorithm with Eager Validation",
 * DISC 2006) and TL2 (Dice, Shalev, Shavit, DISC 2006) with commit-time locking.
 * Invariants:
 *  - Every 8-byte word maps to one ownership record (orec) in a table of 2^TM_OREC_BITS
 *    (orec.h: TM_OREC_SHIFT). An
 *    unlocked orec holds the commit time of the last writer of its words (orec.h: slot 0); a
 *    locked one holds tm_orec_lock_of(lock record), the record naming the owner and the value
 *    it replaced.
 *  - tm_orec_clock counts writer commits. A transaction's snapshot is a clock value such that every
 *    location it read has a version <= snapshot and is unchanged since: reads of a newer version
 *    first extend the snapshot (revalidate all read orecs at the current clock) instead of
 *    aborting.
 *  - Writes are buffered (word-granular redo log). Commit locks the orecs of the write set, takes
 *    a new time (fetch_add on the clock; past the newest version it replaces, which an atomic
 *    may have set ahead of the clock: orec.h), revalidates the read set unless no writer took a
 *    time since the snapshot, writes back and releases the orecs with the new version.
 *  - A read is logged before any extension it triggers, so the extension validates it too.
 * Privatization: a committed writer can still be writing back when a privatizer returns
 * (delayed cleanup) and a doomed reader can read privatized words; commit-time quiescence
 * (core/serial.c) closes both.
 * Shared writes per transaction: none for readers; for writers one clock RMW plus the orecs of
 * the words written (disjoint data: disjoint lines).
 */
#include <string.h>

#include "algo.h"
#include "orec.h"

/* Line-aligned: its first and last orecs share no line with a neighbouring variable. */
_Alignas(64) _Atomic uint64_t tm_orecs[2u << TM_OREC_BITS];
tm_line64 tm_orec_clock_line;

/* Is the read log still valid? An orec locked by this transaction counts with the value it had
 * before we locked it. */
static bool tm_orec_validate(tm_tx *tx)
{
    for (size_t i = 0; i < tx->rset.n; i++) {
        const tm_rentry *e = &tx->rset.e[i];
        /* acquire: pairs with the release store that unlocks an orec at commit. */
        uint64_t cur = atomic_load_explicit((_Atomic uint64_t *)e->addr, memory_order_acquire);
        if (cur == e->val)
            continue;
        if (tm_orec_locked(cur)) {
            const tm_lockrec *r = (const tm_lockrec *)tm_orec_owner(cur);
            if (r->owner == tx && r->old == e->val)
                continue;
        }
        return false;
    }
    return true;
}

static void orec_begin(tm_tx *tx)
{
    tm_orec_begin(tx);
    tm_dead_begin(tx);
    /* The records exist from the thread's taking of its descriptor (orec_locks.c: tm_locks_init). */
    tm_locks_reserve(tx, 1)->n = 0;
}

static void orec_read_word(tm_tx *tx, unsigned char *dst, uintptr_t addr, size_t len)
{
    tm_orec_read_word(tx, dst, addr, len, tm_orec_validate);
}

static void orec_read(tm_tx *tx, void *dst, const void *src, size_t len)
{
    TM_LINES_PHASE(TM_LP_READ);
    if (tm_dead_stack(tx, src, len) && tm_dead_read(tx, dst, src, len))
        return; /* the attempt's own dead frames (core/txn.c) */
    bool buffered = tx->wset.n && tm_wset_maybe(&tx->wset, src, len);
    if (buffered) {
        unsigned char probe[64];
        if (len <= sizeof probe && tm_wset_overlay(&tx->wset, probe, src, len)) {
            memcpy(dst, probe, len);
            return;
        }
    }
    tm_orec_read_range(tx, dst, (uintptr_t)src, len, orec_read_word);
    if (buffered)
        tm_wset_overlay(&tx->wset, dst, src, len);
}

static void orec_write(tm_tx *tx, void *dst, const void *src, size_t len)
{
    if (tm_dead_stack(tx, dst, len)) /* in place: the attempt's own dead frames (core/txn.c) */
        tm_dead_write(tx, dst, src, len);
    else
        tm_wset_write(&tx->wset, dst, src, len);
}

static void tm_orec_unlock_all(tm_locks *l, bool restore, uint64_t version)
{
    for (size_t i = 0; i < l->n; i++) {
        /* release: write-back (or nothing, on failure) happens-before readers of the orec. */
        TM_LINES(TM_LK_OREC, l->rec[i].orec);
        atomic_store_explicit(l->rec[i].orec, restore ? l->rec[i].old : tm_orec_unlocked(version, 0),
                              memory_order_release);
    }
    l->n = 0;
}

static bool orec_commit(tm_tx *tx, tm_skip skip, uint64_t *ts)
{
    *ts = 0;
    if (tx->wset.n == 0)
        return true; /* read-only: every read was consistent with the snapshot */
    tm_locks *l = tm_locks_reserve(tx, tx->wset.n); /* no move once orecs point into it */
    l->n = 0;
    l->named = true; /* our locks name these records (orec.h: tm_locks) */
    uint64_t newest = 0; /* the newest version replaced */
    for (size_t i = 0; i < tx->wset.n; i++) {
        _Atomic uint64_t *o = tm_orec_of(tx->wset.e[i].word);
        uint64_t cur = atomic_load_explicit(o, memory_order_relaxed);
        if (tm_orec_locked(cur)) {
            const tm_lockrec *r = (const tm_lockrec *)tm_orec_owner(cur);
            if (r->owner == tx)
                continue; /* another word of ours maps to the same orec */
            tm_orec_unlock_all(l, true, 0);
            return false;
        }
        tm_lockrec *r = &l->rec[l->n];
        *r = (tm_lockrec){tx, cur, o};
        /* acquire on success: we own the orec's words until we release it. */
        TM_LINES(TM_LK_OREC, o);
        if (!atomic_compare_exchange_strong_explicit(o, &cur, tm_orec_lock_of(r),
                                                     memory_order_acquire, memory_order_relaxed)) {
            tm_orec_unlock_all(l, true, 0);
            return false;
        }
        l->n++;
        if (tm_orec_version(cur) > newest)
            newest = tm_orec_version(cur);
    }
    /* acq_rel: the new time orders after every commit we validated against. */
    TM_LINES(TM_LK_CLOCK, &tm_orec_clock);
    uint64_t wv = atomic_fetch_add_explicit(&tm_orec_clock, 1, memory_order_acq_rel) + 1;
    /* A blind write to a word an atomic versioned ahead of the clock (orec.h): every orec's
     * versions must grow, or a reader could take a changed word for the one it logged. */
    if (TM_UNLIKELY(newest >= wv))
        wv = tm_orec_time_after(newest);
    /* No writer took a time since our snapshot: every read is still valid (TL2). */
    if (!tm_orec_skip_ok(tx, wv) && !tm_orec_validate(tx)) {
        tm_orec_unlock_all(l, true, 0);
        return false;
    }
    tm_wset_writeback(&tx->wset, skip);
    l->version = wv; /* unlocked by orec_published, after the privatization wait */
    *ts = wv;
    return true;
}

/* As orec_eager's (tx.h: published): the orecs stay locked until the privatization wait is
 * over, so a read-only transaction that sees this commit is ordered after every write-back the
 * wait waited for (proxy privatization). */
static void orec_published(tm_tx *tx)
{
    tm_locks *l = tx->algo_state;
    tm_orec_unlock_all(l, false, l->version);
}

static bool orec_upgrade(tm_tx *tx, tm_skip skip)
{
    /* Every other transaction is drained: memory and orecs are stable. */
    if (!tm_orec_validate(tx))
        return false;
    tm_wset_writeback(&tx->wset, skip);
    return true;
}

const tm_dispatch tm_disp_orec_lazy = {
    .name = "orec_lazy",
    .mode = TM_MODE_OREC_LAZY,
    .read = orec_read,
    .write = orec_write,
    .begin = orec_begin,
    .commit = orec_commit,
    .rollback = NULL,
    .upgrade = orec_upgrade,
    .published = orec_published,
    .prepare = tm_orecs_populate,
};

const tm_algo tm_algo_orec_lazy = {
    .name = "orec_lazy",
    .summary = "ownership records, commit-time locking, redo log, snapshot extension (LSA/TL2)",
    .disp = &tm_disp_orec_lazy,
};

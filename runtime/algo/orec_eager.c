/* orec_eager: ownership records, encounter-time locking, write-through with an undo log.
 *
 * Follows the write-through, encounter-time-locking variant of TinySTM (Felber, Fetzer, Riegel,
 * "Dynamic Performance Tuning of Word-Based Software Transactional Memory", PPoPP 2008) and the
 * ml_wt method of GCC's libitm, over the orec table shared with orec_lazy (orec.h).
 * Invariants:
 *  - A writer locks a word's orec (value: descriptor address | 1) before its first write to
 *    it, logs the old bytes, then writes in place; nobody else reads or writes words under a
 *    lock that is not theirs (readers wait briefly, then abort; writers abort at once, so
 *    there is no deadlock).
 *  - An orec is locked only if its version was <= the snapshot at that moment, so no commit
 *    changed it after our snapshot: an orec in the read set that we now hold is still valid.
 *  - Reads check orec, value, orec again; newer versions extend the snapshot (LSA).
 *  - Commit takes a new time, validates the read set unless nobody committed since the
 *    snapshot (and no atomic ran on the orecs: orec.h), and releases the orecs with the new
 *    version, which is newer than any it replaces (each was <= the snapshot when locked). Rollback (the core restores memory
 *    from the undo log first) releases them with their old versions.
 * Privatization: a doomed writer rolls back in place, so a privatizer must wait for it:
 * commit-time quiescence (core/serial.c).
 */
#include <string.h>

#include "algo.h"
#include "orec.h"

static inline uint64_t tm_eager_mine(const tm_tx *tx) { return (uint64_t)(uintptr_t)tx | 1; }

static bool eager_validate(tm_tx *tx)
{
    for (size_t i = 0; i < tx->rset.n; i++) {
        const tm_rentry *e = &tx->rset.e[i];
        /* acquire: pairs with the release store that unlocks an orec. */
        uint64_t cur = atomic_load_explicit((_Atomic uint64_t *)e->addr, memory_order_acquire);
        if (cur != e->val && cur != tm_eager_mine(tx))
            return false;
    }
    return true;
}

static void eager_begin(tm_tx *tx)
{
    tm_orec_begin(tx);
    tm_locks_reserve(tx, 1)->n = 0; /* allocated at the thread's first transaction */
}

static void eager_read(tm_tx *tx, void *dst, const void *src, size_t len)
{
    tm_orec_read_range(tx, dst, (uintptr_t)src, len, tm_eager_mine(tx), eager_validate);
}

static void eager_lock(tm_tx *tx, _Atomic uint64_t *o)
{
    uint64_t cur = atomic_load_explicit(o, memory_order_relaxed);
    if (cur == tm_eager_mine(tx))
        return;
    if (tm_orec_locked(cur))
        tm_restart(tx, TM_ABORT_WRITE_CONFLICT);
    if (tm_orec_version(cur) > tx->snapshot &&
        !tm_orec_extend(tx, eager_validate, tm_orec_version(cur)))
        tm_restart(tx, TM_ABORT_WRITE_CONFLICT);
    tm_locks *l = tx->algo_state;
    if (TM_UNLIKELY(l->n == l->cap))
        l = tm_locks_reserve(tx, l->n + 1);
    /* acquire on success: the words are ours until we release the orec; the release fence
     * keeps our in-place stores after the lock for readers' orec re-checks. */
    if (!atomic_compare_exchange_strong_explicit(o, &cur, tm_eager_mine(tx), memory_order_acquire,
                                                 memory_order_relaxed))
        tm_restart(tx, TM_ABORT_WRITE_CONFLICT);
    atomic_thread_fence(memory_order_release);
    l->rec[l->n++] = (tm_lockrec){tx, cur, o};
}

static void eager_write(tm_tx *tx, void *dst, const void *src, size_t len)
{
    uintptr_t a = (uintptr_t)dst, end = a + len;
    for (uintptr_t w = a & ~(uintptr_t)7; w < end; w += 8)
        eager_lock(tx, tm_orec_of(w));
    tm_undo_push(&tx->undo, dst, len);
    memcpy(dst, src, len);
}

static void eager_release(tm_tx *tx, bool committed, uint64_t version)
{
    tm_locks *l = tx->algo_state;
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        /* release: our in-place writes (or their restoration) happen-before a reader of the orec. */
        atomic_store_explicit(l->rec[i].orec, committed ? version << 1 : l->rec[i].old,
                              memory_order_release);
    l->n = 0;
}

static bool eager_commit(tm_tx *tx, tm_skip skip, uint64_t *ts)
{
    (void)skip;
    *ts = 0;
    tm_locks *l = tx->algo_state;
    if (!l || l->n == 0)
        return true; /* read-only */
    /* acq_rel: the new time orders after every commit we validated against. */
    uint64_t wv = atomic_fetch_add_explicit(&tm_orec_clock, 1, memory_order_acq_rel) + 1;
    if (!tm_orec_skip_ok(tx, wv) && !eager_validate(tx))
        return false; /* the core rolls back, then eager_rollback releases the orecs */
    eager_release(tx, true, wv);
    *ts = wv;
    return true;
}

/* The core has already restored memory. The orecs get a new version, not their old one: a
 * reader that loaded an orec before our lock and a value during it must see the orec change,
 * or it would accept our rolled-back data (ABA). */
static void eager_rollback(tm_tx *tx)
{
    tm_locks *l = tx->algo_state;
    if (!l || l->n == 0)
        return;
    uint64_t wv = atomic_fetch_add_explicit(&tm_orec_clock, 1, memory_order_acq_rel) + 1;
    eager_release(tx, true, wv);
}

static bool eager_upgrade(tm_tx *tx, tm_skip skip)
{
    (void)skip;
    if (!eager_validate(tx))
        return false;
    uint64_t wv = atomic_fetch_add_explicit(&tm_orec_clock, 1, memory_order_acq_rel) + 1;
    eager_release(tx, true, wv);
    return true;
}

const tm_dispatch tm_disp_orec_eager = {
    .name = "orec_eager",
    .mode = TM_MODE_OREC_EAGER,
    .read = eager_read,
    .write = eager_write,
    .begin = eager_begin,
    .commit = eager_commit,
    .rollback = eager_rollback,
    .upgrade = eager_upgrade,
};

const tm_algo tm_algo_orec_eager = {
    .name = "orec_eager",
    .summary = "ownership records, encounter-time locking, write-through with undo log",
    .disp = &tm_disp_orec_eager,
};

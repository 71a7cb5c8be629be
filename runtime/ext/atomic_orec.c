/* tmkit.h's atomics outside transactions while several threads transact under an orec
 * algorithm (orec_eager, orec_lazy; adaptive in one of those modes).
 *
 * Otherwise each operation would be a one-word transaction: a checkpoint, a read and a write
 * barrier, a commit that takes a time from the global clock, all to change one word. Here the
 * operation is what that transaction would do, minus what one word does not need:
 *  - it enters as a serial-lock reader, like a speculative attempt (core/serial.c: one store to
 *    its own descriptor), so no serial transaction runs meanwhile and adaptive cannot change
 *    the algorithm under it; refused (serial holder, readers excluded) it answers "not done"
 *    and the header runs the one-word transaction, which waits as transactions do;
 *  - it locks the word's orec with a lock record of its own (so orec_lazy's validation, which
 *    reads the record of a locked orec, sees another owner), does the operation with plain
 *    loads and stores, and releases the orec with a new version: one newer than both the
 *    clock and the orec's old version, WITHOUT taking a time from the clock. Operations on
 *    different words thus write no common line (TL2's GV5 idea). The price is paid by those
 *    who meet such a version: a transaction whose snapshot is older extends it and raises the
 *    clock to the version first (algo/orec.h, tm_orec_extend), so every later commit takes a
 *    time after it, and writer commits validate their read logs even when nobody took a time
 *    since their snapshot (tm_orec_atomics; published once, with a membarrier);
 *  - an operation that stored waits, like a writer's commit, for the transactions that may
 *    still see the old value (privatization: a thread may take an object out of shared reach
 *    with an exchange and use it with plain code; core/serial.c, tm_quiesce), after raising
 *    the clock to its version if one is running, so that transactions starting later do not
 *    look older than it.
 * An orec held by a transaction is waited for briefly; past that (the holder may itself be
 * waiting to go serial, which waits for this reader) the header's transaction takes over.
 * While readers are excluded (adaptive's serial mode, serialirr) the same path runs: no
 * transaction uses the orecs then, operations on different words still share nothing, and
 * the serial lock's holder, which skips the readers' drain, waits for the operations in
 * flight (tm_serial_drain_atomics, from the first such operation on). gl_wt and NOrec always
 * take the transaction: their transactions keep no per-word metadata, so a one-word change has
 * to be ordered with every one of them (the global version, the sequence lock). */
#include "ext.h"
#include "atomic_op.h"

#include "../algo/algo.h"
#include "../core/config.h"
#include "../core/serial_fast.h"

extern const tm_dispatch tm_disp_orec_lazy TM_HIDDEN, tm_disp_orec_eager TM_HIDDEN;

/* As tm_reader_enter (core/serial.c), but never waits, and enters while readers are excluded
 * too (see tm_atomic_orec_usable): a serial holder sends the operation to the header's
 * transaction, which waits as transactions do. Marked in
 * atomic_busy, not shared_ts: a writer's quiescence need not wait for an operation on one word
 * that cannot roll back, and the line it reads stays unwritten (core/tx.h). */
static bool tm_atomic_orec_enter(tm_tx *tx)
{
    /* seq_cst store, then seq_cst loads: the reader half of the serial lock's Dekker pattern
     * (the writer's loads of atomic_busy in tm_serial_drain). */
    atomic_store_explicit(&tx->atomic_busy, 1, memory_order_seq_cst);
    /* A thread that owns the bias runs with the word free (core/bias.c): refused too, and the
     * header's transaction takes the bias back. Its grant precedes the unlock whose 0 we load,
     * so the owner's load after it sees the grant; an owner granted after our load of the
     * word was a holder then, which drained us first. */
    if (TM_LIKELY(atomic_load_explicit(&tm_serial_word, memory_order_seq_cst) == 0) &&
        TM_LIKELY(atomic_load_explicit(&tm_bias_owner, memory_order_seq_cst) == 0))
        return true;
    atomic_store_explicit(&tx->atomic_busy, 0, memory_order_release);
    return false;
}

static inline void tm_atomic_orec_exit(tm_tx *tx)
{
    /* release: the operation happens-before a serial writer that observes 0. */
    atomic_store_explicit(&tx->atomic_busy, 0, memory_order_release);
}

/* A load: the orec, the word, the orec again (as a transaction's read, algo/orec.h). */
static bool tm_atomic_orec_load(_Atomic uint64_t *o, void *p, unsigned code, uint64_t *out)
{
    for (unsigned spin = 0; spin < 128; spin++) {
        /* acquire: the word's load below sees the data of this version. */
        uint64_t v1 = atomic_load_explicit(o, memory_order_acquire);
        if (!tm_orec_locked(v1)) {
            uint64_t x = tm_aop(p, code, 0, 0);
            /* acquire fence: the word's load happens before the orec's re-check. */
            atomic_thread_fence(memory_order_acquire);
            if (atomic_load_explicit(o, memory_order_relaxed) == v1) {
                *out = x;
                return true;
            }
        }
        __builtin_ia32_pause();
    }
    return false;
}

/* Publishes tm_orec_atomics before the first such operation; false without membarrier. */
static bool tm_atomic_orec_publish(void)
{
    if (atomic_load_explicit(&tm_orec_atomics, memory_order_acquire))
        return true;
    /* Every thread's next commit, after this barrier, sees the flag: one that loaded 0 before
     * it took its time before any operation below changed a version (orec.h). */
    atomic_store_explicit(&tm_orec_atomics, 1, memory_order_seq_cst);
    if (!tm_barrier_all())
        return false;
    return true;
}

/* The version an operation releases its orec with: past the clock and the old version. */
static inline uint64_t tm_atomic_orec_version(uint64_t old)
{
    /* acquire: as a snapshot's load (orec.h). */
    uint64_t now = atomic_load_explicit(&tm_orec_clock, memory_order_acquire);
    uint64_t v = tm_orec_version(old);
    return (now > v ? now : v) + 1;
}

/* Quiescence is about to wait for an older transaction: raise the clock to our version. */
static void tm_atomic_orec_publish_version(uint64_t ver) { (void)tm_orec_raise(ver); }

static inline bool tm_atomic_orec_algo(const tm_dispatch *d)
{
    return d == &tm_disp_orec_eager || d == &tm_disp_orec_lazy;
}

/* May an operation run on the orecs now? Under an orec algorithm, or while readers are
 * excluded (adaptive's serial mode, the serial algorithms): then no transaction reads or
 * writes through the orecs, and the serial lock's holder waits for the operations in flight
 * (core/serial.c, tm_serial_drain_atomics). Not under gl_wt or NOrec, whose transactions keep
 * no per-word metadata. Rechecked after the entry, when adaptive cannot switch meanwhile. */
static inline bool tm_atomic_orec_usable(tm_tx *tx)
{
    if (!tm_config.algo->managed)
        return tm_config.algo->serial || tm_atomic_orec_algo(tm_config.algo->disp);
    return tm_serial_excluding() || tm_atomic_orec_algo(tm_cm_disp(tx));
}

bool tm_atomic_orec(tm_tx *tx, void *p, unsigned code, uint64_t v, uint64_t cmp, uint64_t *out)
{
    /* Published before the entry: a serial holder that did not see the flag must have taken
     * the lock before this entry could look at it (core/serial_fast.h). */
    if (!tm_atomic_orec_usable(tx) || !tm_atomic_orec_publish())
        return false;
    if (!tm_atomic_orec_enter(tx))
        return false;
    const tm_dispatch *d = tm_config.algo->managed ? tm_cm_disp(tx) : tm_config.algo->disp;
    if (!tm_atomic_orec_usable(tx)) {
        tm_atomic_orec_exit(tx);
        return false;
    }
    /* Readers excluded now: no speculative transaction runs, nor can one start before this
     * operation ends (starting them takes the lock, which waits for us), so none can see the
     * old value after it: no quiescence. */
    bool serial_mode = tm_config.algo->serial || tm_serial_excluding();
    _Atomic uint64_t *o = tm_orec_of((uintptr_t)p);
    if ((code >> 1) == TM_AOP_LOAD) {
        bool done = tm_atomic_orec_load(o, p, code, out);
        tm_atomic_orec_exit(tx);
        return done;
    }
    tm_locks *l = tm_locks_reserve(tx, 1); /* outside a transaction: its records are free */
    tm_lockrec *r = &l->rec[0];
    l->named = true; /* our lock names r (algo/orec.h: tm_locks) */
    uint64_t cur;
    for (unsigned spin = 0;; spin++) {
        cur = atomic_load_explicit(o, memory_order_relaxed);
        if (!tm_orec_locked(cur)) {
            *r = (tm_lockrec){tx, cur, o};
            /* acquire on success: the word is ours until the release below; release: orec_lazy's
             * validation reads the record through the orec. */
            if (atomic_compare_exchange_strong_explicit(o, &cur, tm_orec_lock_of(r),
                                                        memory_order_acq_rel, memory_order_relaxed))
                break;
        } else if (spin >= 128) {
            tm_atomic_orec_exit(tx);
            return false;
        }
        __builtin_ia32_pause();
    }
    /* Beside hardware transactions a plain load and store could lose an update (atomic_op.h);
     * without them the orec alone makes the operation atomic. */
    uint64_t old = tm_htm_available ? tm_aop_hw(p, code, v, cmp) : tm_aop(p, code, v, cmp);
    bool stored = tm_aop_stored(code, old, cmp);
    uint64_t ver = stored ? tm_atomic_orec_version(cur) : 0;
    /* release: the operation's store happens-before whoever reads the new version. */
    atomic_store_explicit(o, stored ? tm_orec_unlocked(ver, 0) : cur, memory_order_release);
    tm_atomic_orec_exit(tx);
    if (stored && !serial_mode && tm_quiesce_needed(d))
        tm_quiesce(tx, ver, tm_atomic_orec_publish_version);
    *out = old;
    return true;
}

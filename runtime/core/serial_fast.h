/* Inline fast paths of the serial lock (serial.c) and of adaptive's commit count (cm.c), for
 * the begin and commit fast paths of serial transactions (begin.c, txn.c, abi/entry.c). Each
 * handles the uncontended case in a few instructions and calls out of line for everything else. */
#ifndef TMKIT_SERIAL_FAST_H
#define TMKIT_SERIAL_FAST_H

#include "tx.h"

/* The serial lock's word: 0 free, 1 held, 2 held with sleepers, 3 held and a spinning waiter
 * asks for it, 4 free and handed to the waiter that asked (serial_handoff.c). `unlocks` counts
 * the unlocks, written by the holder only: a spinner that sees the word free twice with the
 * same count knows nobody took the lock in between, and a hand-over changes the pair (word,
 * count) as one 64-bit compare-and-swap (`both`, little-endian: the word is the low half), so
 * that it cannot hand over a lock someone took and released since the unlock that found the
 * request. Mixed 32- and 64-bit atomics on one word: x86-64 orders them as one location (the
 * runtime is x86-64 only). Alone on its line (serial.c). */
typedef union {
    struct {
        _Atomic uint32_t w;
        _Atomic uint32_t unlocks;
    };
    _Atomic uint64_t both;
    char line[64];
} __attribute__((aligned(64))) tm_serial_lock_line;
_Static_assert(sizeof(tm_serial_lock_line) == 64, "one cache line");
extern tm_serial_lock_line tm_serial_line TM_HIDDEN;
#define tm_serial_word (tm_serial_line.w)
#define TM_SERIAL_HANDED 4u
/* Sleepers the unlock must see (serial.c, ext/): a serial-lock reader sleeps (TM_RWAIT_READER,
 * serial.c); some thread sleeps in tm_retry (TM_RWAIT_RETRY, ext/waiters.c); writers must fence
 * before they test for waiters (TM_RWAIT_FENCE: no membarrier, set once at start, bias.c).
 * The serial unlock loads the word anyway, so serial commits notice waiters at no cost (its
 * own xchg is the fence); other writing commits test it once (hooks.h:
 * tm_ext_wait_check_commit). */
extern _Atomic uint32_t tm_serial_rwait TM_HIDDEN;
#define TM_RWAIT_READER 1u
#define TM_RWAIT_RETRY 2u
#define TM_RWAIT_FENCE 4u
#define TM_RWAIT_SLEEPERS (TM_RWAIT_READER | TM_RWAIT_RETRY) /* what an unlock may wake */
TM_HIDDEN void tm_serial_locked(tm_tx *tx);       /* drain unless readers are excluded */
TM_HIDDEN void tm_serial_wake(uint64_t old);      /* the unlock's sleepers, if any */
TM_HIDDEN void tm_cm_window(tm_tx *tx);           /* every TM_CM_WINDOW commits: epoch over? */
/* A contended waiter's hand-off and passive phases (serial_handoff.c, serial_wait.c): true if
 * `trylock` took the lock. */
TM_HIDDEN bool tm_serial_spin_wait(bool (*trylock)(void));
TM_HIDDEN bool tm_serial_poll_wait(bool (*trylock)(void));
TM_HIDDEN void tm_serial_handoff(tm_tx *holder, uint32_t unlocks); /* an unlock found 3 */
/* Nonzero: the plain lock, no turns (serial_handoff.c; adaptive's choice, cm_decide.c). */
extern _Atomic uint32_t tm_serial_plain TM_HIDDEN;
TM_HIDDEN bool tm_serial_crowded(void); /* waiters wait passively: no spare CPU to spin on
                                        * (the waiters' last reading) */
TM_HIDDEN bool tm_serial_crowded_now(void); /* the same, reading the load if it is old: for
                                            * threads about to spin (ext/wait.c) */

#define TM_CM_WINDOW 128u

/* tmkit.h's atomics have run on the orecs (algo/orec.h: tm_orec_atomics, the same word): a
 * holder that skips the drain because readers are excluded must still wait for them. The flag
 * is published with a membarrier before the first such atomic enters (ext/atomic_orec.c), so a
 * holder that loads 0 took the lock before any could enter. */
extern tm_line32 tm_orec_atomics_line TM_HIDDEN;
static inline bool tm_serial_atomics(void)
{
    /* relaxed: see above. */
    return atomic_load_explicit(&tm_orec_atomics_line.w, memory_order_relaxed);
}
TM_HIDDEN void tm_serial_drain_atomics(tm_tx *self);

/* One try of a speculative attempt's entry as a reader of the serial lock (serial.c, where
 * tm_reader_enter repeats it, waiting while a writer holds the lock): 1 if the attempt is now a
 * reader; 0 if readers are excluded (adaptive runs serially) and -1 if a writer holds the lock,
 * both with the descriptor inactive again. Inline for the speculative begin (begin.c). */
static inline int tm_reader_try_enter(tm_tx *tx)
{
    /* seq_cst store then seq_cst loads: the reader half of the Dekker pattern (pairs with the
     * writer's seq_cst exchange + seq_cst loads of shared_ts in tm_serial_drain). The load of
     * tm_serial_excl comes after the word's: a reader that saw the word free from a holder's
     * release also sees the flag that holder left. relaxed (attempts): the owner is the only
     * writer; the seq_cst store below orders it before the attempt's loads (tm_quiesce_ended
     * relies on that). */
    TM_LINES(TM_LK_DESC, &tx->attempts); /* shared_ts's line */
    TM_LINES(TM_LK_DESC, &tx->shared_ts);
    atomic_store_explicit(&tx->attempts,
                          atomic_load_explicit(&tx->attempts, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    atomic_store_explicit(&tx->shared_ts, 0, memory_order_seq_cst);
    uint32_t w = atomic_load_explicit(&tm_serial_word, memory_order_seq_cst);
    if (TM_LIKELY(w == 0) &&
        TM_LIKELY(!atomic_load_explicit(&tm_serial_excl, memory_order_seq_cst))) {
        tx->flags |= TM_F_READER;
        return 1;
    }
    TM_LINES(TM_LK_DESC, &tx->shared_ts);
    atomic_store_explicit(&tx->shared_ts, TM_TS_INACTIVE, memory_order_release);
    return w == 0 ? 0 : -1;
}

/* Takes the serial lock if it is free (true), draining readers unless they are excluded. */
static inline bool tm_serial_trylock_fast(tm_tx *tx)
{
    uint32_t expected = 0;
    /* seq_cst: the writer's announcement in the Dekker pattern (serial.c). */
    TM_LINES(TM_LK_SERIAL, &tm_serial_word);
    if (!atomic_compare_exchange_strong_explicit(&tm_serial_word, &expected, 1,
                                                 memory_order_seq_cst, memory_order_relaxed))
        return false;
    /* relaxed: written only by lock holders, ordered before us by the lock's acquisition. */
    /* relaxed (the owner): as in tm_bias_yield. */
    if (TM_LIKELY(atomic_load_explicit(&tm_serial_excl, memory_order_relaxed)) &&
        TM_LIKELY(!tm_serial_atomics()) &&
        TM_LIKELY(!atomic_load_explicit(&tm_bias_owner, memory_order_relaxed)))
        tx->flags |= TM_F_SERIAL;
    else
        tm_serial_locked(tx); /* drains readers, or the atomics only; takes back a bias */
    return true;
}

/* Releases the serial lock; true if sleepers need waking or a waiter asked for the lock: then
 * pass *old to tm_serial_wake: the word's value before the unlock in its low half, the unlock
 * count this unlock wrote in its high half. Split so a caller can move the wake out of its
 * fast path. */
static inline bool tm_serial_unlock_nowake(uint64_t *old)
{
    /* relaxed: only the holder writes the count; the exchange below publishes it. */
    uint32_t n = atomic_load_explicit(&tm_serial_line.unlocks, memory_order_relaxed) + 1;
    atomic_store_explicit(&tm_serial_line.unlocks, n, memory_order_relaxed);
    /* seq_cst (a release at least: the serial transaction's writes happen-before whoever sees
     * the word free): also the unlock's half of the sleeping-reader handshake (serial.c). */
    TM_LINES(TM_LK_SERIAL, &tm_serial_word);
    uint32_t w = atomic_exchange_explicit(&tm_serial_word, 0, memory_order_seq_cst);
    *old = (uint64_t)n << 32 | w;
    return w >= 2 ||
           (atomic_load_explicit(&tm_serial_rwait, memory_order_seq_cst) & TM_RWAIT_SLEEPERS);
}

static inline void tm_serial_unlock_fast(void)
{
    uint64_t old;
    if (TM_UNLIKELY(tm_serial_unlock_nowake(&old)))
        tm_serial_wake(old);
}

/* One more commit of this descriptor, for adaptive's measurement (cm.c). */
static inline void tm_cm_count(tm_tx *tx)
{
    /* relaxed: only this thread writes its count; the decider's sum needs no order. */
    uint64_t n = atomic_load_explicit(&tx->cm.commits, memory_order_relaxed) + 1;
    TM_LINES(TM_LK_CM_OWN, &tx->cm.commits);
    atomic_store_explicit(&tx->cm.commits, n, memory_order_relaxed);
    tm_cm_count_writing(tx);
    if (TM_UNLIKELY(n % TM_CM_WINDOW == 0))
        tm_cm_window(tx);
}

#endif

/* gl_wt: one global versioned lock, eager write-through with an undo log.
 *
 * Follows the "global lock, write-through" method of GCC's libitm (method-gl.cc) and the
 * single-orec end of Dice/Shalev/Shavit, "Transactional Locking II" (DISC 2006).
 * Invariants:
 *  - gl_clock is even when free; a writer sets bit 0 (CAS from its snapshot) before its first
 *    in-place write and publishes snapshot + 2 at commit or rollback.
 *  - A reader's values are consistent iff gl_clock still equals its (even) snapshot after the
 *    loads: any writer since then changed it. No snapshot extension (no per-location versions).
 *  - Writers are mutually exclusive. The owner's snapshot becomes the locked value it installed,
 *    so the one read check (gl_clock == snapshot) passes for the owner and for readers alike,
 *    and the inline read fast path (fast.h) needs no separate ownership test.
 * Privatization: a transaction can write only after proving no writer committed since its
 * start, and a reader checks the clock before the program sees a value; a doomed reader's
 * load from memory the privatizer unmapped restarts it (gl_doomed, core/faultguard.c).
 */
#include <string.h>

#include "algo.h"
#include "fast.h"
#include "../core/serial_fast.h"

tm_line64 tm_gl_clock_line;
#define gl_clock tm_gl_clock

static void gl_begin(tm_tx *tx)
{
    tm_fair_begin(tx); /* a thread that keeps restarting goes first (core/fair.c) */
    /* acquire: pairs with the release store at a writer's commit, so data it wrote is visible.
     * A locked (odd) value is kept: the first access then restarts instead of spinning here,
     * which could deadlock against the lock holder draining the serial lock. */
    uint64_t v = atomic_load_explicit(&gl_clock, memory_order_acquire);
    /* A locked clock becomes a snapshot no clock value equals (all ones), so every access of this
     * attempt fails its check and restarts. */
    tx->snapshot = (v & 1) ? ~(uint64_t)0 : v;
    tx->owned = 0;
    /* release: quiescing writers read this with acquire. */
    TM_LINES(TM_LK_DESC, &tx->shared_ts);
    atomic_store_explicit(&tx->shared_ts, v & ~(uint64_t)1, memory_order_release);
}

static void gl_read(tm_tx *tx, void *dst, const void *src, size_t len)
{
    memcpy(dst, src, len);
    /* acquire fence: orders the data loads above before the clock load below; pairs with the
     * writer's release fence after its CAS (seqlock pattern). A snapshot taken while the clock
     * was locked is all ones, which the clock never equals; an owner's snapshot is its own
     * locked value, which the clock keeps until the owner releases it. */
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&gl_clock, memory_order_relaxed) != tx->snapshot)
        tm_restart(tx, TM_ABORT_READ_CONFLICT);
}

static void gl_write(tm_tx *tx, void *dst, const void *src, size_t len)
{
    if (!tx->owned) {
        uint64_t expected = tx->snapshot;
        /* acquire on success: we now own every location; the release fence that follows keeps
         * our in-place stores after the lock bit for readers (see gl_read). */
        if ((expected & 1) || (TM_LINES_AT(TM_LK_CLOCK, TM_LP_WRITE, &gl_clock),
            !atomic_compare_exchange_strong_explicit(&gl_clock, &expected, expected | 1,
                                                     memory_order_acquire, memory_order_relaxed)))
            tm_restart(tx, TM_ABORT_WRITE_CONFLICT);
        atomic_thread_fence(memory_order_release);
        tx->owned = 1;
        tx->snapshot = expected | 1;
    }
    /* A word of 1, 2, 4 or 8 bytes (len - 1 < 8 also refuses 0), naturally aligned at both
     * ends (a barrier's value is a local uint64_t), takes the path the barriers' inline one
     * takes once the clock is owned (abi/barrier_defs.h): the first write of every writer
     * comes here, and the general undo record and the two variable-length copies cost it ~40
     * instructions more (callgrind, micro's counter: 496 -> 456 a transaction). */
    const uintptr_t ends = (uintptr_t)dst | (uintptr_t)src;
    if (len - 1 < 8 && (len & (len - 1)) == 0 && (ends & (len - 1)) == 0 &&
        tm_undo_push_fast(&tx->undo, dst, (unsigned)len)) {
        tm_store_n(dst, tm_load_n(src, (unsigned)len), (unsigned)len);
        return;
    }
    tm_undo_push(&tx->undo, dst, len);
    memcpy(dst, src, len);
}

static void gl_release(tm_tx *tx, uint64_t *ts)
{
    uint64_t next = (tx->snapshot & ~(uint64_t)1) + 2; /* the owner's snapshot is odd */
    /* release: our in-place writes (or their restoration) happen-before any reader that sees
     * the new version. */
    TM_LINES(TM_LK_CLOCK, &gl_clock);
    atomic_store_explicit(&gl_clock, next, memory_order_release);
    tx->owned = 0;
    if (ts)
        *ts = next;
}

static bool gl_commit(tm_tx *tx, tm_skip skip, uint64_t *ts)
{
    (void)skip;
    *ts = 0;
    if (tx->owned)
        gl_release(tx, ts);
    return true; /* every read was validated when it happened */
}

static void gl_rollback(tm_tx *tx)
{
    if (tx->owned)
        gl_release(tx, NULL);
}

static bool gl_upgrade(tm_tx *tx, tm_skip skip)
{
    (void)skip;
    if (tx->owned) {
        gl_release(tx, NULL);
        return true;
    }
    return !(tx->snapshot & 1) &&
           atomic_load_explicit(&gl_clock, memory_order_acquire) == tx->snapshot;
}

/* A read-only transaction's conflict ends (tm_restart): every conflict gl_wt has is with a
 * writer that holds the clock or has moved it, and that writer never aborts for us, so the
 * conflict is over once the clock is unlocked; waiting for that, instead of the core's random
 * back-off, lets a reader see a writer's commit within a cache-line transfer (a token passed
 * between two threads that poll it in read-only transactions: 0.9M hand-offs/s with the
 * back-off, 6M with the wait, bench micro --mode ring).
 * Bounded, and given up as soon as the serial lock is held or wanted: this descriptor still
 * counts as a running reader until its next attempt, and a serial holder drains readers (a
 * gl_wt writer going irrevocable holds the clock while it does). */
static bool gl_settle(tm_tx *tx)
{
    (void)tx;
    for (unsigned i = 0; i < 256; i++) {
        /* relaxed: a hint; the next attempt's begin loads the clock with acquire. */
        if (!(atomic_load_explicit(&gl_clock, memory_order_relaxed) & 1))
            return true;
        /* relaxed: a hint too; the drain does not wait for us to see it (we leave in bounded
         * time either way). */
        if (atomic_load_explicit(&tm_serial_word, memory_order_relaxed))
            return false;
        __builtin_ia32_pause();
    }
    return false;
}

/* A fault handler's question (core/faultguard.c): did a writer start since our snapshot? An
 * owner's snapshot is the clock value it installed, so an owner is never doomed. */
static bool gl_doomed(const tm_tx *tx)
{
    /* acquire: the fault observed the privatizer's unmapping, which followed its commit. */
    return atomic_load_explicit(&gl_clock, memory_order_acquire) != tx->snapshot;
}

const tm_dispatch tm_disp_gl_wt = { /* also used by adaptive (core/cm.c) */
    .name = "gl_wt",
    .mode = TM_MODE_GLWT,
    .read = gl_read,
    .write = gl_write,
    .begin = gl_begin,
    .commit = gl_commit,
    .rollback = gl_rollback,
    .upgrade = gl_upgrade,
    .doomed = gl_doomed,
    .settle = gl_settle,
};

const tm_algo tm_algo_gl_wt = {
    .name = "gl_wt",
    .summary = "global versioned lock, eager write-through with undo log",
    .disp = &tm_disp_gl_wt,
};

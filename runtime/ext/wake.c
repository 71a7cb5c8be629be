/* The writer's side of blocking waits (wait.c): after a commit that may have written, wake the
 * waiters whose watch its writes touch.
 *
 * Both sides describe memory by a 256-bit filter of orec indices (tm_watch_add in ext.h): a
 * waiter by what its attempt read (NOrec's value log, the orec algorithms' read sets), a writer
 * by what it wrote (a redo log's words, or the undo log's ranges under write-through and the
 * serial undo mode). A side that knows nothing (a waiter under gl_wt or an exclusive mode; a
 * writer that ran GCC's uninstrumented code) matches everything. A false match costs the
 * waiter one re-run of its transaction (the statistics count them: retry_spurious); a missed
 * one cannot happen, since every word written maps to its bit.
 * Cost: nothing unless some thread waits (one relaxed load per writing commit, ext.h); a fence
 * and a load of the waiters' count while the flag outlives them (waiters.c); otherwise, per
 * writing commit, a look at each waiter's line found through the waiters' slots (ext.h; with
 * more than TM_WAIT_SLOTS waiters, a walk over every descriptor). */
#define _GNU_SOURCE

#include "ext.h"
#include "../algo/orec.h"
#include "../core/sys.h"

TM_HIDDEN void tm_undo_ranges(const tm_undo *u, void (*fn)(void *, uintptr_t, size_t), void *ctx);

static void tm_watch_range_cb(void *w, uintptr_t a, size_t len) { tm_watch_range(w, a, len); }

/* What the commit wrote; false if unknown (then every waiter matches). */
static bool tm_written(tm_tx *tx, uint64_t *w)
{
    switch (tx->mode) {
    case TM_MODE_NOREC:
    case TM_MODE_OREC_LAZY:
        for (size_t i = 0; i < tx->wset.n; i++)
            tm_watch_add(w, tm_orec_index(tm_orec_of(tx->wset.e[i].word)));
        return true;
    case TM_MODE_GLWT:
    case TM_MODE_OREC_EAGER:
    case TM_MODE_SERIAL_UNDO:
        tm_undo_ranges(&tx->undo, tm_watch_range_cb, w);
        return true;
    default:
        return false;
    }
}

static bool tm_wrote_nothing(const tm_tx *tx)
{
    return tx->mode != TM_MODE_DIRECT && tx->mode != TM_MODE_OTHER && tx->wset.n == 0 &&
           tx->undo.len == 0;
}

/* Wakes t if it waits for something the commit of tx wrote (w; all: unknown). */
static void tm_wake_if(tm_tx *tx, tm_tx *t, const uint64_t *w, bool all)
{
    /* relaxed: a stale 0 here means it published after our writes, and then its own check sees
     * them (waiters.c). */
    if (t == tx || !atomic_load_explicit(&t->ext.waiting, memory_order_relaxed))
        return;
    bool hit = all || atomic_load_explicit(&t->ext.watch_all, memory_order_relaxed);
    for (int k = 0; !hit && k < TM_WATCH_WORDS; k++)
        hit = (atomic_load_explicit(&t->ext.watch[k], memory_order_relaxed) & w[k]) != 0;
    if (!hit)
        return;
    /* seq_cst: release, so the waiter's acquire load of the word sees our commit, and our half
     * of the handshake with its raise of `asleep` and its recheck (wait.c: a waiter still
     * polling needs no system call). */
    atomic_fetch_add_explicit(&t->ext.wake, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&t->ext.asleep, memory_order_seq_cst))
        tm_futex_wake(&t->ext.wake, 1);
}

void tm_wait_wake(tm_tx *tx)
{
    /* seq_cst fence, then the count: the writer's half of the handshake with a waiter that
     * published without a barrier of ours (waiters.c, "the flag"); acquire: its increment
     * releases its watch and `waiting`. */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&tm_wait_count, memory_order_acquire) == 0) {
        if (++tx->ext.idle_wakes >= TM_WAIT_LINGER) {
            tx->ext.idle_wakes = 0;
            tm_wait_linger_end();
        }
        return;
    }
    tx->ext.idle_wakes = 0;
    if (tm_wrote_nothing(tx))
        return;
    uint64_t w[TM_WATCH_WORDS] = {0};
    bool all = !tm_written(tx, w);
    /* relaxed: the acquire load of the count above made every slot and overflow count of the
     * waiters it counts visible; one that came later sees our writes in its own check. */
    if (atomic_load_explicit(&tm_wait_overflow, memory_order_relaxed)) {
        for (tm_tx *t = tm_registry_head(); t;
             t = atomic_load_explicit(&t->next, memory_order_acquire))
            tm_wake_if(tx, t, w, all);
        return;
    }
    uint32_t hi = atomic_load_explicit(&tm_wait_slots_hi, memory_order_relaxed);
    for (uint32_t i = 0; i < hi; i++) {
        tm_tx *t = atomic_load_explicit(&tm_wait_slot[i], memory_order_relaxed);
        if (t)
            tm_wake_if(tx, t, w, all);
    }
}

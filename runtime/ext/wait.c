/* Blocking waits inside transactions: tm_retry (Harris, Marlow, Peyton Jones, Herlihy,
 * "Composable Memory Transactions", PPoPP 2005) and tm_cond_wait, for -fgnu-tm code.
 *
 * The program asks for a wait (tmkit_retry_request, tmkit_cond_wait_request: transaction_pure,
 * called by the macros in include/tmkit/wait.h) and then cancels the outermost transaction
 * (`__transaction_cancel [[outer]]`, which is what makes GCC compile the transaction so that it
 * can be rolled back, under every algorithm and on the serial and biased paths alike). The
 * cancel finds the request (tm_cancel calls tm_wait_and_restart) and, instead of ending the
 * transaction:
 *  1. notes what to wait for: for tm_retry, a 256-bit filter of the orecs of what the attempt
 *     read (NOrec's value log, the orec algorithms' read sets), or "anything" where the mode
 *     keeps no read set (gl_wt, serial, biased); for tm_cond_wait, the condition's sequence
 *     number as the attempt read it;
 *  2. tm_retry: publishes itself (ext.waiting, a slot, the count of waiters and bit
 *     TM_RWAIT_RETRY of tm_serial_rwait, which every writing commit tests) and fences
 *     (waiters.c); tm_cond_wait publishes nothing here: its futex word is the condition's
 *     sequence number, which a later signal bumps (cond.c);
 *  3. checks that what the attempt read is still current (an exclusive attempt's always is;
 *     a speculative one compares values, orec versions or gl_wt's clock): if not, something
 *     it waits for already changed, and it restarts at once;
 *  4. rolls the attempt back completely (writes undone, allocations freed, undo actions run,
 *     commit actions dropped, locks and the serial lock released) and sleeps on a futex until
 *     a committing writer whose writes meet the filter (wake.c) or a signal of the condition
 *     (cond.c) changes the futex word, or the deadline passes;
 *  5. runs the transaction again from its start.
 * Steps 2-3 against a writer's commit-then-test form a Dekker handshake: either the writer
 * sees the waiter and wakes it, or the waiter sees the writer's writes and does not sleep.
 * The waiters' flag, count and slots, and why a waiter need not force a barrier on every
 * thread each time: waiters.c.
 * Writes made outside transactions never wake a waiter (as in Haskell's STM).
 * A transaction that went irrevocable before it asked cannot be rolled back: that stops the
 * program with a message, as a cancel would. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <time.h>

#include "ext.h"
#include "../algo/orec.h"
#include "../core/serial_fast.h"
#include "../core/sys.h"
#include "../stats/stats.h"

TM_HIDDEN __attribute__((noreturn)) void tm_restart_waiting(tm_tx *tx, void (*sleep)(tm_tx *));
extern tm_line64 tm_gl_clock_line TM_HIDDEN;

#define TM_WAIT_SPIN 10000u /* TSC cycles (~4 us) a waiter polls its word before it sleeps */

/* Threads asleep in any wait (tm_retry or tm_cond_wait) are counted in core's tm_wait_sleepers,
 * which the serial lock reads (core/hooks.h). */

static uint64_t tm_wait_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* ---- what the attempt read ---------------------------------------------------------------- */

static void tm_wait_watch(tm_tx *tx)
{
    tm_ext_state *e = &tx->ext;
    uint64_t w[TM_WATCH_WORDS] = {0};
    bool all = false;
    switch (tx->mode) {
    case TM_MODE_NOREC: /* values: the orecs of the words read */
        for (size_t i = 0; i < tx->rset.n; i++)
            tm_watch_range(w, tx->rset.e[i].addr, tx->rset.e[i].len);
        break;
    case TM_MODE_OREC_LAZY: /* the read set holds the orecs themselves */
        for (size_t i = 0; i < tx->rset.n; i++)
            tm_watch_add(w, tm_orec_index((_Atomic uint64_t *)tx->rset.e[i].addr));
        break;
    case TM_MODE_OREC_EAGER: /* so does orec_eager's, without values */
        for (const uintptr_t *p = tx->olog.base; p < tx->olog.cur; p++)
            tm_watch_add(w, tm_orec_index((_Atomic uint64_t *)*p));
        break;
    default: /* gl_wt and the exclusive modes keep no read set */
        all = true;
    }
    for (int k = 0; k < TM_WATCH_WORDS; k++)
        atomic_store_explicit(&e->watch[k], w[k], memory_order_relaxed);
    atomic_store_explicit(&e->watch_all, all, memory_order_relaxed);
}

/* Is what the attempt read still what memory holds (see the top: step 3)? */
static bool tm_wait_reads_current(tm_tx *tx)
{
    switch (tx->mode) {
    case TM_MODE_NOREC:
        return tm_rset_valid(&tx->rset);
    case TM_MODE_OREC_EAGER:
        return tm_eager_validate(tx); /* every orec read still at most the snapshot, or ours */
    case TM_MODE_OREC_LAZY:
        for (size_t i = 0; i < tx->rset.n; i++) {
            /* acquire: pairs with the release that unlocks an orec after a write-back. */
            uint64_t cur = atomic_load_explicit((_Atomic uint64_t *)tx->rset.e[i].addr,
                                                memory_order_acquire);
            if (cur != tx->rset.e[i].val)
                return false; /* changed, or locked by a writer that may commit */
        }
        return true;
    case TM_MODE_GLWT:
        /* acquire: as gl_wt's reads. The owner's snapshot is the locked value it installed. */
        return atomic_load_explicit(&tm_gl_clock_line.w, memory_order_acquire) == tx->snapshot;
    default:
        return true; /* exclusive (serial lock or bias): nothing ran beside it */
    }
}

/* ---- publishing and sleeping -------------------------------------------------------------- */

/* Sleeps on the futex while *word == val, until the deadline (0: none). True if it changed. */
static bool tm_wait_futex(_Atomic uint32_t *word, uint32_t val, uint64_t deadline)
{
    /* seq_cst: after the caller's raise of its sleepers' count, against a waker's bump of the
     * word and load of the count (wake.c, cond.c). */
    while (atomic_load_explicit(word, memory_order_seq_cst) == val) {
        struct timespec ts, *tp = NULL;
        if (deadline) {
            if (tm_wait_now_ns() >= deadline)
                return false;
            ts.tv_sec = (time_t)(deadline / 1000000000ull);
            ts.tv_nsec = (long)(deadline % 1000000000ull);
            tp = &ts;
        }
        /* FUTEX_WAIT_BITSET: an absolute CLOCK_MONOTONIC timeout. */
        long r = tm_sys6(SYS_futex, (long)word, FUTEX_WAIT_BITSET_PRIVATE, val, (long)tp, 0,
                         FUTEX_BITSET_MATCH_ANY);
        if (r == -ETIMEDOUT)
            return atomic_load_explicit(word, memory_order_acquire) != val;
    }
    return true;
}

/* Polls *word for up to TM_WAIT_SPIN cycles while there is a spare CPU: true if it changed.
 * A thread that waits for its partner's next commit (a token passed back and forth, a
 * producer one item ahead of its consumer) is woken within a microsecond or two, where a
 * futex sleep and wake-up cost ~10-20 us and two system calls. The waiter polls its own line,
 * which writers only read until the one that wakes it. */
static bool tm_wait_spin(_Atomic uint32_t *word, uint32_t val)
{
    if (tm_serial_crowded_now())
        return false;
    uint64_t t0 = __builtin_ia32_rdtsc();
    do {
        for (int i = 0; i < 8; i++)
            __builtin_ia32_pause();
        /* acquire: as after a futex wait, the waker's commit is visible. */
        if (atomic_load_explicit(word, memory_order_acquire) != val)
            return true;
    } while (__builtin_ia32_rdtsc() - t0 < TM_WAIT_SPIN);
    return false;
}

/* Sleeps while *word == val, until the deadline (0: none). True if the word changed.
 * `sleepers` (tm_retry's ext.asleep, a condition's second word): raised around the futex
 * waits, so that a waker that finds it 0 skips the FUTEX_WAKE (wake.c, cond.c). */
static bool tm_wait_sleep(_Atomic uint32_t *word, uint32_t val, uint64_t deadline,
                          _Atomic uint32_t *sleepers)
{
    if (tm_wait_spin(word, val)) /* a deadline passes a spin's length late at most */
        return true;
    /* seq_cst: then the word's load (tm_wait_futex); the waker bumps the word, then loads this. */
    atomic_fetch_add_explicit(sleepers, 1, memory_order_seq_cst);
    bool r = tm_wait_futex(word, val, deadline);
    /* relaxed: a waker that still sees us makes one FUTEX_WAKE for nothing. */
    atomic_fetch_sub_explicit(sleepers, 1, memory_order_relaxed);
    return r;
}

/* The sleep of a request, between the rollback and the new attempt (tm_restart_waiting). */
static void tm_wait_sleep_req(tm_tx *tx)
{
    tm_ext_state *e = &tx->ext;
    tm_site *site = e->sleep_site;
    uint64_t t0 = site ? __builtin_ia32_rdtsc() : 0;
    bool woken;
    if (tx->ext.gheld)
        tm_groups_step_out(tx); /* group_held.c: as pthread_cond_wait releases its mutex */
    /* relaxed: a hint for the serial lock's waiters (ext.h), no order needed. */
    atomic_fetch_add_explicit(&tm_wait_sleepers, 1, memory_order_relaxed);
    if (e->cond_seq) {
        /* The sleepers' count sits next to the number (tm_cond_t, include/tmkit/wait.h). */
        woken = e->sleep_skip || tm_wait_sleep(e->cond_seq, e->cond_val, e->deadline,
                                               e->cond_seq + 1);
    } else {
        woken = e->sleep_skip || tm_wait_sleep(&e->wake, e->wake_val, e->deadline, &e->asleep);
        tm_wait_unpublish(tx);
    }
    atomic_fetch_sub_explicit(&tm_wait_sleepers, 1, memory_order_relaxed);
    if (site) {
        site->c[TM_STAT_retry_sleeps] += !e->sleep_skip;
        site->c[TM_STAT_retry_wakeups] += woken && !e->sleep_skip;
        site->c[TM_STAT_cycles_asleep] += __builtin_ia32_rdtsc() - t0;
    }
    e->woken_id = woken && !e->sleep_skip ? tx->id : 0;
    e->cond_seq = NULL;
    if (tx->ext.gheld)
        tm_groups_step_in(tx);
}

void tm_wait_and_restart(tm_tx *tx)
{
    tm_ext_state *e = &tx->ext;
    uint8_t req = e->req;
    e->req = TM_WAIT_NONE;
    if (tx->flags & TM_F_IRREVOCABLE)
        tm_fatal("tm_retry or tm_cond_wait in a transaction that already went irrevocable (it "
                 "called code that cannot be rolled back), so it cannot wait and run again");
    if (tx->mode == TM_MODE_OREC_RO) {
        /* An unlogged read-only attempt (algo/orec_eager_ro.c) cannot tell what it read: run
         * again with a read log, which waits (a wait's restart would be a first attempt). */
        e->cond_seq = NULL;
        tm_restart(tx, TM_ABORT_VALIDATE);
    }
    /* A woken transaction that waits again: the wake-up was spurious for it. */
    e->sleep_site = tm_stats_on ? tx->stats_site : NULL;
    if (e->sleep_site && e->woken_id == tx->id)
        e->sleep_site->c[TM_STAT_retry_spurious]++;
    if (req == TM_WAIT_RETRY) {
        e->cond_seq = NULL;
        e->wake_val = atomic_load_explicit(&e->wake, memory_order_acquire);
        tm_wait_watch(tx);
        tm_wait_publish(tx);
        tm_bias_revoke(tx); /* biased commits do not wake sleepers (core/bias.c: tm_bias_grant) */
    }
    /* tm_cond_wait publishes nothing before the check: its futex word is the number itself, and
     * a signal after the check bumps it (cond.c). */
    e->sleep_skip = !tm_wait_reads_current(tx);
    tm_restart_waiting(tx, tm_wait_sleep_req);
}

void tm_wait_fork_child(void)
{
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_relaxed))
        atomic_store_explicit(&t->ext.waiting, 0, memory_order_relaxed);
    tm_waiters_fork_child();
    atomic_store_explicit(&tm_wait_sleepers, 0, memory_order_relaxed);
}

/* ---- the requests (include/tmkit/wait.h) -------------------------------------------------- */

static tm_tx *tm_wait_tx(const char *what)
{
    tm_tx *tx = tm_cur;
    if (!tx || tx->nesting == 0)
        tm_fatal("%s called outside a transaction", what);
    return tx;
}

TM_EXPORT void tmkit_retry_request(uint64_t deadline_ns)
{
    tm_tx *tx = tm_wait_tx("tm_retry");
    tx->ext.req = TM_WAIT_RETRY;
    tx->ext.deadline = deadline_ns;
}

TM_EXPORT void tmkit_cond_wait_request(uint32_t *seq, uint64_t deadline_ns)
{
    tm_tx *tx = tm_wait_tx("tm_cond_wait");
    uint32_t v;
    /* Through the attempt's barrier: the value is consistent with the predicate it read. */
    tx->disp->read(tx, &v, seq, sizeof v);
    tx->ext.req = TM_WAIT_COND;
    tx->ext.cond_seq = (_Atomic uint32_t *)seq;
    tx->ext.cond_val = v;
    tx->ext.deadline = deadline_ns;
}

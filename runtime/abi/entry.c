/* ABI entry points for transaction control, queries and user actions. */
#include <stdio.h>

#include "../algo/algo.h"
#include "../core/config.h"
#include "../core/serial_fast.h"
#include "../ext/ext.h"
#include "../stats/stats.h"

/* A serial commit's unlock found sleepers: serial-lock waiters, and threads waiting in
 * tm_retry or tm_cond_wait (ext/wait.c), whom any serial commit may concern (its writes are
 * not logged). */
static void tm_commit_serial_sleepers(tm_tx *tx, uint64_t old)
{
    tm_serial_wake(old);
    if (atomic_load_explicit(&tm_serial_rwait, memory_order_relaxed) & TM_RWAIT_RETRY)
        tm_wait_wake(tx);
}

/* The serial commit's unlock found sleepers: wake them, then count the commit. */
static __attribute__((noinline)) void tm_commit_serial_wake(tm_tx *tx, uint64_t old)
{
    tm_commit_serial_sleepers(tx, old);
    tm_cm_count(tx);
    TM_LINES_END(1);
}

/* The rest of a serial commit that has more to do than the fast path (commit actions, a
 * `locals` log, a statistics attempt): what tm_commit does after its release. */
static __attribute__((noinline)) void tm_commit_serial_rest(tm_tx *tx, bool wake, uint64_t old)
{
    /* Counter additions close first, before anything that may wait (adaptive's count may wait
     * for the serial lock, whose next holder may be reading the counters: core/txn.c). */
    tm_counters_apply(tx);
    if (wake)
        tm_commit_serial_sleepers(tx, old);
    tx->flags &= ~(TM_F_SERIAL | TM_F_IRREVOCABLE); /* as tm_serial_release */
    tm_commit_finish(tx, tm_config.algo->managed);
}

/* The commit of an outermost serial-irrevocable transaction (it holds the serial lock, runs in
 * direct mode and cannot fail). The lock is released first: everything else the commit does
 * happens after it, so that the critical section the other threads wait for ends as soon as
 * the transaction is known to be one (checkpoint.S's begin likewise writes the descriptor
 * before it takes the lock). Every call out of it is a tail call, so neither it nor the biased
 * case needs a stack frame (a frame cost 4 of a serial transaction's ~110 instructions).
 * Shortening the critical section on both sides by ~17 instructions gave 1.20x the throughput
 * of disjoint updates at 2 threads, 1.11x on a shared counter, 1.21x on writes of 16 words
 * (adaptive, 21 interleaved pairs, 2026-11-23). */
static inline __attribute__((always_inline)) void tm_commit_serial(tm_tx *tx)
{
    uint64_t old;
    /* which of our last serial commits only read (core/serial_handoff.c) */
    tx->cm.ro_hist = tx->cm.ro_hist << 1 | (tx->prop & pr_readOnly);
    tm_bias_count(tx); /* a long streak takes the bias, before the unlock (core/bias.c) */
    bool wake = tm_serial_unlock_nowake(&old);
    /* The exchange is a full barrier: nothing below moves above it. */
    if (TM_UNLIKELY((tx->n_actions | tx->locals.len | (uintptr_t)tx->stats_site) != 0)) {
        tm_commit_serial_rest(tx, wake, old);
        return;
    }
    tm_commit_fast_reset(tx);
    tx->flags = 0;
    if (TM_UNLIKELY(wake)) {
        tm_commit_serial_wake(tx, old);
        return;
    }
    tm_cm_count(tx); /* for adaptive; counts (harmlessly) under serialirr too */
    TM_LINES_END(1);
}

TM_EXPORT void _ITM_commitTransaction(void)
{
    tm_tx *tx = tm_cur_tcb();
    /* Fast paths: an outermost irrevocable transaction running GCC's uninstrumented code,
     * either biased or holding the serial lock. The biased one needs nothing logged, no
     * actions and nothing for the statistics to count but what its start left pending
     * (stats_site is NULL when they are off, and when the attempt is counted whole:
     * tm_stats_attempt_whole); nothing to
     * undo, so the descriptor is already as tm_commit's reset leaves it. The serial one
     * checks the same after its unlock (tm_commit_serial). Then a speculative attempt,
     * whose commit is short if it wrote nothing (tm_commit_reader, core/txn.c). */
    if (TM_LIKELY(tx && tx->nesting == 1)) {
        uint32_t flags = tx->flags;
        TM_LINES_PHASE(TM_LP_COMMIT);
        if (TM_LIKELY(flags == (TM_F_BIASED | TM_F_IRREVOCABLE) &&
                      (tx->n_actions | tx->locals.len | (uintptr_t)tx->stats_site) == 0 &&
                      tx->mode == TM_MODE_DIRECT)) {
            tm_commit_fast_reset(tx);
            tm_bias_commit_count(tx);
            tx->flags = 0; /* what tm_bias_exit clears, and the rest */
            /* release: as in tm_bias_exit (tx.h). */
            TM_LINES(TM_LK_DESC, &tx->shared_ts);
            atomic_store_explicit(&tx->shared_ts, TM_TS_INACTIVE, memory_order_release);
            TM_LINES_END(1);
            return;
        }
        if (flags == (TM_F_SERIAL | TM_F_IRREVOCABLE)) {
            tm_commit_serial(tx);
            return;
        }
        if (flags == (TM_F_HTM | TM_F_IRREVOCABLE)) {
            tm_htm_commit(tx);
            return;
        }
        if (flags == TM_F_READER) {
            tm_commit_reader(tx);
            return;
        }
    }
    tm_commit(tx, 0);
}

TM_HIDDEN void tm_eh_commit_failed(tm_tx *tx, void *exc);

/* Called when an exception leaves the transaction: GCC's semantics commit it. If the commit
 * fails, the exception object belongs to the aborted attempt and is destroyed on restart. */
TM_EXPORT void _ITM_commitTransactionEH(void *exc_ptr)
{
    tm_tx *tx = tm_cur;
    if (tx && tx->nesting == 1)
        tx->eh_in_flight = exc_ptr;
    tm_commit(tx, (uintptr_t)__builtin_frame_address(0));
    if (tx)
        tx->eh_in_flight = NULL;
}

TM_EXPORT __attribute__((noreturn)) void _ITM_abortTransaction(_ITM_abortReason reason)
{
    tm_cancel(tm_cur, (uint32_t)reason);
}

TM_EXPORT void _ITM_changeTransactionMode(_ITM_transactionState state)
{
    if (state != modeSerialIrrevocable)
        tm_fatal("_ITM_changeTransactionMode: unknown mode %d", (int)state);
    tm_go_irrevocable(tm_cur, (uintptr_t)__builtin_frame_address(0),
                      (uintptr_t)__builtin_return_address(0));
}

TM_EXPORT _ITM_howExecuting _ITM_inTransaction(void)
{
    tm_tx *tx = tm_cur;
    if (!tx || tx->nesting == 0)
        return outsideTransaction;
    return (tx->flags & TM_F_IRREVOCABLE) ? inIrrevocableTransaction : inRetryableTransaction;
}

TM_EXPORT _ITM_transactionId_t _ITM_getTransactionId(void)
{
    tm_tx *tx = tm_cur;
    return (tx && tx->nesting) ? tx->id : TM_NO_TRANSACTION_ID;
}

TM_EXPORT const char *_ITM_libraryVersion(void)
{
    return "tmkit 0.1 (Intel TM ABI " TM_ABI_VERSION_STRING ")";
}

TM_EXPORT int _ITM_versionCompatible(int version)
{
    return version == TM_ABI_VERSION_NUMBER;
}

TM_EXPORT __attribute__((noreturn)) void _ITM_error(const _ITM_srcLocation *loc, int code)
{
    tm_fatal("_ITM_error: error %d%s%s", code, loc && loc->psource ? " at " : "",
             loc && loc->psource ? loc->psource : "");
}

TM_EXPORT void _ITM_dropReferences(void *start, size_t size)
{
    (void)start;
    (void)size;
    tm_fatal("_ITM_dropReferences is not supported (it has no defined semantics in GCC's TM "
             "implementation)");
}

static void tm_call_user(void *arg, uintptr_t fn)
{
    ((void (*)(void *))fn)(arg);
}

TM_EXPORT void _ITM_addUserCommitAction(_ITM_userCommitFunction fn, _ITM_transactionId_t tid,
                                        void *arg)
{
    tm_tx *tx = tm_cur;
    if (tid != TM_NO_TRANSACTION_ID)
        tm_fatal("_ITM_addUserCommitAction: resuming transaction id %u is not supported "
                 "(pass _ITM_noTransactionId)", tid);
    if (!tx || tx->nesting == 0) {
        fn(arg); /* outside a transaction: "after commit" is now */
        return;
    }
    tm_action_add(tx, TM_ACT_COMMIT_USER, tm_call_user, arg, (uintptr_t)fn);
}

TM_EXPORT void _ITM_addUserUndoAction(_ITM_userUndoFunction fn, void *arg)
{
    tm_tx *tx = tm_cur;
    if (!tx || tx->nesting == 0)
        return; /* outside a transaction nothing can be rolled back */
    tm_action_add(tx, TM_ACT_UNDO_USER, tm_call_user, arg, (uintptr_t)fn);
}

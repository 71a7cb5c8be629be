/* The end of a transaction: commit, cancel, restart, the switch to serial-irrevocable mode, and
 * the commit/abort actions. Its start (outer and nested begins) is in begin.c.
 *
 * Nesting: a nested transaction that cannot cancel (pr_hasNoAbort) is flattened into its parent;
 * one that can gets its own checkpoint (closed nesting) recording the length of every log, so
 * cancelling it restores exactly the state at its start. Outermost transactions always have
 * checkpoint 0.
 *
 * Execution modes (tx->disp): the configured speculative algorithm; serial_undo (exclusive,
 * instrumented, undo-logged so it can still cancel); direct (serial-irrevocable, no logging,
 * used for uninstrumented code). A transaction runs serially when it always goes irrevocable,
 * has no instrumented path, the algorithm is serial, or it failed max_retries times.
 *
 * Stack rule: rollback and write-back never write the region between the bottom of the thread's
 * stack and the checkpoint's CFA; those are dead frames of the transaction's callees that the
 * runtime itself is using now. Locals the compiler logged with _ITM_L* lie above the CFA.
 *
 * The layers above: the algorithm's commit, rollback, upgrade, publication and settling go
 * through its dispatch table (dispatch.h); the statistics, the extensions' counters and waits,
 * the promise not to privatize and the C++ exception state through hooks (hooks.h). The commit
 * fast paths of abi/entry.c come here for everything but the common cases.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "hooks.h"
#include "serial_fast.h"

tm_skip tm_dead_frames(const tm_tx *tx, uintptr_t top)
{
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    if (tx->stack_known && top > tx->stack_lo && top <= tx->stack_hi)
        return (tm_skip){tx->stack_lo, top};
    /* Running on a stack we do not know (coroutine, alternate stack): everything from well
     * below our own frame up to the checkpoint. */
    return (tm_skip){here > 65536 ? here - 65536 : 0, top};
}

/* Redo logs and the program's own stack temporaries. GCC's transactional clones store into
 * their frame's temporaries through write barriers and load them back with plain loads (and
 * the reverse), e.g. a std::pair returned in registers: buffered, the plain load sees stale
 * bytes. A frame below the innermost checkpoint's is created inside the attempt and discarded
 * by its restart, and no other thread can see it before the commit (it is gone by then), so its
 * bytes need neither the log nor validation: the barriers access them in place, as a
 * write-through runtime does (the redo-log algorithms' read and write). */
bool tm_dead_stack(tm_tx *tx, const void *addr, size_t len)
{
    if (!tm_dead_maybe(tx, addr))
        return false;
    tm_skip s = tm_dead_frames(tx, tm_cp_jb(tx, tx->n_cps - 1)->cfa);
    uintptr_t a = (uintptr_t)addr;
    return a >= s.lo && a < s.hi && len <= s.hi - a;
}

/* A write there: in memory, and in the write set too where it already holds some of the bytes
 * (an inner transaction that could cancel wrote them while they were live frames), so the
 * barriers' view (buffered first) and plain loads agree. */
void tm_dead_write(tm_tx *tx, void *dst, const void *src, size_t len)
{
    memcpy(dst, src, len);
    if (tx->wset.n && tm_wset_holds(&tx->wset, dst, len))
        tm_wset_write(&tx->wset, dst, src, len);
}

/* A read there: from memory, unless the write set holds some of the bytes (then the caller's
 * general path, which overlays them). */
bool tm_dead_read(tm_tx *tx, void *dst, const void *src, size_t len)
{
    if (tx->wset.n && tm_wset_holds(&tx->wset, src, len))
        return false;
    memcpy(dst, src, len);
    return true;
}

void tm_dead_begin(tm_tx *tx)
{
    tm_skip s = tm_dead_frames(tx, tx->jb0.cfa);
    tx->dead_lo = s.lo;
    tx->dead_len = s.hi - s.lo;
}

/* Privatization safety for a writer that committed (TMKIT_PRIVATIZATION, core/faultguard.c). */
static inline bool tm_must_quiesce(const tm_dispatch *d)
{
    if (tm_config.privatization != TM_PRIV_AUTO)
        return tm_config.privatization == TM_PRIV_QUIESCE;
    /* relaxed: see tm_guard_refresh. */
    return !(d->doomed && atomic_load_explicit(&tm_guard_active, memory_order_relaxed));
}

bool tm_quiesce_needed(const tm_dispatch *d) { return tm_must_quiesce(d); }

/* Restarts of a read-only transaction that may wait for its conflict to end (tm_dispatch's
 * settle) instead of backing off. Beyond them, a reader that keeps meeting writers backs off:
 * bank's audits (1,024 reads) under gl_wt at 2 threads, restarted at once every time, aborted
 * 20x as often and fell back to serial 100x as often (0.70x the throughput). */
#define TM_SETTLE_RETRIES 2u

/* A thread that commits one transaction every TM_BACKOFF_LONG TSC cycles or more restarts at
 * once (measured over its last TM_CM_WINDOW commits, cm.c: so under adaptive, the default,
 * which counts them; the other algorithms always back off). The back-off batches writers that
 * commit back to back: of two threads that update one counter, the one that waits lets the
 * other commit a run of transactions with the lines in its cache (gl_wt's shared counter at 2
 * threads 31M operations a second with it, 12.5M without). Where a thread's commits are far
 * apart (long transactions, or work of its own between them) there is no such run to let
 * through, and the wait is lost time: STAMP's intruder, under adaptive's gl_wt at 2 threads
 * (~1.2 us a commit a thread), spent 38% of its samples in these pauses
 * (bench/results/third-party, "The back-off at 2 threads"). Far apart: 1,024 cycles (~0.4 us),
 * above the back-to-back writers' 50-300 (the counter, the bank, the trees at 2 threads). */
#define TM_BACKOFF_LONG 1024u

static void tm_backoff(tm_tx *tx, const tm_dispatch *d)
{
    if (tx->cm.commit_cycles >= TM_BACKOFF_LONG) {
        tm_count_add1(&tx->cm.quick_restarts); /* the owner's, summed by the report */
        /* Restarted at once this often: the others commit past us (fair.c). Only where the
         * others' begins would wait for the claim: elsewhere (adaptive's orec_eager) it held
         * nobody back, and the profile counted turns that were none. */
        if (tx->retries >= TM_FAIR_RETRIES && tx->cm.fair_claim == 0 && d && tm_fair_applies(d))
            tm_fair_claim(tx);
        return;
    }
    unsigned shift = tx->retries < 6 ? tx->retries : 6;
    unsigned spins = (unsigned)(tm_rng_next(tx) % (64u << shift));
    for (unsigned i = 0; i < spins; i++)
        __builtin_ia32_pause();
}


/* ---- actions ----------------------------------------------------------------------------- */

/* Room for one more action. When the list cannot grow (realloc failed): TM_ROOM_FATAL stops
 * with a message, TM_ROOM_TRY returns false, TM_ROOM_LOG is tm_log_grow's (a restart without
 * logs where it can). */
static bool tm_action_room(tm_tx *tx, tm_room mode)
{
    if (TM_LIKELY(tx->n_actions < tx->cap_actions))
        return true;
    size_t cap = tx->cap_actions ? tx->cap_actions * 2 : 32;
    tm_action *a = mode == TM_ROOM_LOG ? tm_log_grow(tx->actions, cap * sizeof *a, "action list")
                   : mode == TM_ROOM_TRY
                       ? realloc(tx->actions, cap * sizeof *a)
                       : tm_xrealloc(tx->actions, cap * sizeof *a, "action list");
    if (!a)
        return false;
    tx->actions = a;
    tx->cap_actions = cap;
    return true;
}

void tm_action_add(tm_tx *tx, uint32_t kind, void (*fn)(void *, uintptr_t), void *arg, uintptr_t aux)
{
    tm_action_room(tx, TM_ROOM_FATAL);
    tx->actions[tx->n_actions++] = (tm_action){kind, fn, arg, aux};
}

bool tm_action_add_room(tm_tx *tx, tm_room mode, uint32_t kind, void (*fn)(void *, uintptr_t),
                        void *arg, uintptr_t aux)
{
    if (!tm_action_room(tx, mode))
        return false;
    tx->actions[tx->n_actions++] = (tm_action){kind, fn, arg, aux};
    return true;
}

bool tm_action_forget(tm_tx *tx, uint32_t kind, void *arg)
{
    for (size_t i = tx->n_actions; i-- > 0;)
        if (tx->actions[i].kind == kind && tx->actions[i].arg == arg) {
            tx->actions[i].kind = TM_ACT_NONE;
            return true;
        }
    return false;
}

/* Runs actions [from, n) of a detached list: on commit forwards, on abort backwards. The list is
 * detached first so a handler may itself run transactions. */
static void tm_actions_run_list(tm_tx *tx, size_t from, bool committed);

static inline void tm_actions_run(tm_tx *tx, size_t from, bool committed)
{
    if (tx->n_actions != from) {
        /* Only the counters' action (the common case of a transaction that counts): apply the
         * additions without detaching a list. */
        if (tx->n_actions == from + 1 && tx->actions[from].kind == TM_ACT_COUNTER) {
            tx->n_actions = from;
            if (committed)
                tm_ext_counters_apply(tx);
            return;
        }
        tm_actions_run_list(tx, from, committed);
    }
}

static void tm_actions_run_list(tm_tx *tx, size_t from, bool committed)
{
    size_t n = tx->n_actions, cap = tx->cap_actions;
    tm_action *list = tx->actions, local[8];
    size_t count = n - from;
    tm_action *run = local;
    if (count <= 8) {
        memcpy(run, list + from, count * sizeof *run);
    } else if (from == 0) {
        /* The whole list: the descriptor gives up its array (a handler's transaction starts a
         * new one) and takes it back below, so running a long list needs no memory (with
         * malloc failing, a commit must still run its frees and handlers). */
        run = list;
        tx->actions = NULL;
        tx->cap_actions = 0;
    } else {
        run = tm_xrealloc(NULL, count * sizeof *run, "action list");
        memcpy(run, list + from, count * sizeof *run);
    }
    tx->n_actions = from;
    if (committed) {
        /* Counter additions first, all under one hold of the counters' sequence lock. */
        for (size_t i = 0; i < count; i++)
            if (run[i].kind == TM_ACT_COUNTER) {
                tm_ext_counters_apply(tx);
                break;
            }
        for (size_t i = 0; i < count; i++)
            if (run[i].kind == TM_ACT_COMMIT_USER || run[i].kind == TM_ACT_FREE_ON_COMMIT)
                run[i].fn(run[i].arg, run[i].aux);
    } else {
        /* A nested rollback runs these while the outer attempt goes on: their memcpy calls are
         * the handler's, not the transaction's (abi/interpose.c). */
        tx->plain_calls++;
        for (size_t i = count; i-- > 0;)
            if (run[i].kind == TM_ACT_UNDO_USER || run[i].kind == TM_ACT_FREE_ON_ABORT)
                run[i].fn(run[i].arg, run[i].aux);
        tx->plain_calls--;
    }
    if (run == list && !tx->actions) { /* the array given up above, back */
        tx->actions = run;
        tx->cap_actions = cap;
    } else if (run != local) {
        free(run);
    }
}

/* ---- end of a transaction ---------------------------------------------------------------- */

/* Resets the descriptor to "no transaction"; the serial lock must already be released. */
static inline void tm_reset(tm_tx *tx)
{
    tx->nesting = 0;
    tx->n_cps = 0;
    tm_set_disp(tx, &tm_disp_direct);
    tx->flags &= ~(TM_F_IRREVOCABLE | TM_F_FORCE_SERIAL);
    tx->undo.len = 0;
    tx->undo.count = 0;
    tx->locals.len = 0;
    if (tx->wset.n | tx->wset.undo_n | tx->wset.nest_mark)
        tm_wset_reset(&tx->wset);
    tx->rset.n = 0;
    tm_olog_reset(&tx->olog);
    tx->eh_in_flight = NULL;
    tx->catch_count = 0;
}

/* Restores the state of checkpoint k and runs the undo actions registered since. For k == 0
 * the transaction is over afterwards (the serial lock is kept if held: restart may need it). */
static void tm_rollback_to(tm_tx *tx, size_t k)
{
    tm_checkpoint *cp = &tx->cps[k];
    tm_skip skip = tm_dead_frames(tx, tm_cp_jb(tx, k)->cfa);
    tm_undo_rollback(&tx->undo, cp->undo_mark, skip);
    tm_undo_rollback(&tx->locals, cp->locals_mark, skip);
    tm_hooks.eh_rollback(tx, cp->catch_count, k == 0);
    if (k == 0) {
        if (tx->disp->rollback)
            tx->disp->rollback(tx);
        if (tx->flags & TM_F_READER)
            tm_reader_exit(tx);
        if (tx->flags & TM_F_BIASED)
            tm_bias_exit(tx);
        uint32_t keep = tx->flags & TM_F_SERIAL;
        tm_reset(tx);
        tx->flags = (tx->flags & ~TM_F_SERIAL) | keep;
        tm_ext_counters_undo(tx, 0); /* the attempt's counter additions */
        tm_actions_run(tx, 0, false);
    } else {
        tm_wset_truncate(&tx->wset, cp->wset_len, cp->wset_undo_mark);
        tx->wset.nest_mark = cp->wset_nest_mark;
        tm_set_disp(tx, cp->disp_before);
        tx->nesting = cp->nesting;
        tx->n_cps = k;
        tm_ext_counters_undo(tx, cp->counters_mark); /* the nested transaction's additions */
        tm_actions_run(tx, cp->actions_mark, false);
    }
}

/* What running the outermost transaction again needs from before its rollback: the undo
 * actions run by the rollback may run transactions of their own in the descriptor. */
typedef struct tm_outer_saved {
    tm_jmpbuf jb;
    uint32_t prop, retries;
    _ITM_transactionId_t id;
} tm_outer_saved;

static tm_outer_saved tm_rollback_outer(tm_tx *tx, tm_abort_reason why)
{
    if (TM_UNLIKELY(tm_stats_on))
        tm_hooks.stats_abort(tx, why);
    tm_outer_saved s = {tx->jb0, tx->prop, tx->retries, tx->id};
    tm_rollback_to(tx, 0);
    return s;
}

static void tm_reestablish(tm_tx *tx, const tm_outer_saved *s, uint32_t retries)
{
    tx->n_cps = 1;
    tx->jb0 = s->jb;
    tx->prop = s->prop;
    tx->retries = retries;
    tx->id = s->id;
    tx->nesting = 1;
    tx->irrevocable_cps = 0;
}

static __attribute__((noreturn)) void tm_start_again(tm_tx *tx)
{
    tm_eh_begin(tx);
    uint32_t bits = tm_attempt_start(tx);
    tm_longjmp(&tx->jb0, bits | a_restoreLiveVariables);
}

void tm_restart(tm_tx *tx, tm_abort_reason why)
{
    TM_LINES_PHASE(TM_LP_ABORT);
    if (tx->flags & TM_F_HTM)
        tm_htm_abort(); /* the hardware rolls back; the retry takes the serial lock */
    if (tx->flags & TM_F_IRREVOCABLE)
        tm_fatal("internal error: restart requested for an irrevocable transaction");
    const tm_dispatch *d = tx->disp; /* the attempt's: the next one may choose another */
    tm_outer_saved s = tm_rollback_outer(tx, why);
    uint32_t retries = s.retries + 1;
    tm_reestablish(tx, &s, retries);
    TM_LINES_END(0);
    /* Still holding the serial lock (an upgrade whose validation failed): rerun serially. */
    if (why == TM_ABORT_SERIAL || retries >= tm_config.max_retries || (tx->flags & TM_F_SERIAL)) {
        tx->flags |= TM_F_FORCE_SERIAL;
        tm_fair_end(tx); /* the serial lock's drain gives us the turn */
    } else if (!(retries <= TM_SETTLE_RETRIES && (s.prop & pr_readOnly) && d && d->settle &&
               d->settle(tx)))
        tm_backoff(tx, d);
    tm_start_again(tx);
}

/* A wait's restart (ext/wait.c): roll the whole transaction back, release what it holds (the
 * serial lock too: nobody else could commit while it slept), sleep, then start it again as a
 * new first attempt (a wait is not a failure: no back-off, no count towards the serial
 * fallback). */
void tm_restart_waiting(tm_tx *tx, void (*sleep)(tm_tx *))
{
    TM_LINES_PHASE(TM_LP_ABORT);
    if (tx->flags & TM_F_HTM)
        tm_htm_abort(); /* a wait needs the software path: it runs again under the lock */
    tm_outer_saved s = tm_rollback_outer(tx, TM_ABORT_RETRY);
    if (tx->flags & TM_F_SERIAL)
        tm_serial_release(tx);
    TM_LINES_END(0);
    sleep(tx);
    tm_reestablish(tx, &s, 0);
    tm_start_again(tx);
}

void tm_cancel(tm_tx *tx, uint32_t reason)
{
    if (!tx || tx->nesting == 0)
        tm_fatal("_ITM_abortTransaction called outside a transaction");
    if (tx->flags & TM_F_HTM) {
        /* The outermost transaction's cancel: the hardware rolls it back, and its begin returns
         * as the cancel's would (htm.c: tm_cancel_htm_done). Only in one that GCC says may
         * cancel: its begin's caller tests for a_abortTransaction. A nested one's cancel, a
         * retry, a wait, or a cancel with actions registered (the hardware would drop the
         * undo actions the cancel must run) needs the software path. */
        if (!tx->ext.req && tx->n_actions == 0 &&
            (reason & (userAbort | userRetry | TMConflict)) == userAbort &&
            ((reason & outerAbort) || tx->n_cps == 1) && !(tx->prop & pr_hasNoAbort))
            tm_htm_cancel();
        tm_htm_abort();
    }
    /* tm_retry / tm_cond_wait: roll back, wait, run again (ext/wait.c). */
    if (TM_UNLIKELY(tx->ext.req)) {
        tm_hooks.wait_and_restart(tx);
        __builtin_unreachable(); /* it restarts the transaction */
    }
    if (reason & (userRetry | TMConflict)) {
        if (tx->flags & TM_F_IRREVOCABLE)
            tm_fatal("_ITM_abortTransaction: cannot retry an irrevocable transaction");
        tm_restart(tx, TM_ABORT_RETRY);
    }
    if (!(reason & userAbort))
        tm_fatal("_ITM_abortTransaction: unsupported reason 0x%x", reason);
    size_t k = (reason & outerAbort) ? 0 : tx->n_cps - 1;
    if ((tx->flags & TM_F_IRREVOCABLE) && k < tx->irrevocable_cps)
        tm_fatal("__transaction_cancel in a transaction that already went irrevocable "
                 "(it called code that cannot be rolled back)");
    if (TM_UNLIKELY(tm_stats_on)) {
        if (k == 0)
            tm_hooks.stats_abort(tx, TM_ABORT_CANCEL);
        else
            tm_hooks.stats_nested_cancel(tx);
    }
    tm_jmpbuf jb = *tm_cp_jb(tx, k);
    TM_LINES_PHASE(TM_LP_ABORT);
    tm_rollback_to(tx, k);
    if (k == 0 && (tx->flags & TM_F_SERIAL))
        tm_serial_release(tx);
    if (k == 0)
        TM_LINES_END(0);
    tm_longjmp(&jb, a_abortTransaction | a_restoreLiveVariables);
}

/* The descriptor is as the hardware left it, as before the try: nothing logged, no lock held
 * (the try's flags are the serial path's, TM_OUTER_INIT's). What tm_cancel does after its
 * rollback of checkpoint 0 is left. */
uint32_t tm_cancel_htm_done(tm_tx *tx)
{
    if (TM_UNLIKELY(tm_stats_on))
        tm_hooks.stats_abort(tx, TM_ABORT_CANCEL);
    tm_reset(tx);
    tx->flags &= ~TM_F_SERIAL;
    tm_ext_counters_undo(tx, 0);
    tm_actions_run(tx, 0, false);
    TM_LINES_END(0);
    return a_abortTransaction | a_restoreLiveVariables;
}

void tm_commit(tm_tx *tx, uintptr_t caller_frame)
{
    (void)caller_frame;
    if (TM_UNLIKELY(!tx || tx->nesting == 0))
        tm_fatal("_ITM_commitTransaction called outside a transaction");
    if (tx->nesting > 1) {
        tm_checkpoint *top = &tx->cps[tx->n_cps - 1];
        if (tx->n_cps > 1 && top->nesting + 1 == tx->nesting) {
            /* Closed nested commit: its logs merge into the parent's. */
            tx->wset.nest_mark = top->wset_nest_mark;
            if (top->disp_before == &tm_disp_direct)
                tm_set_disp(tx, &tm_disp_direct);
            tx->n_cps--;
        }
        tx->nesting--;
        return;
    }
    if (tx->flags & TM_F_HTM) {
        tm_htm_commit(tx);
        return;
    }
    TM_LINES_PHASE(TM_LP_COMMIT);
    bool managed = tm_config.algo->managed && !(tx->flags & TM_F_BIASED);
    if (tx->flags & TM_F_READER) {
        uint64_t ts = 0;
        tm_skip skip = tm_dead_frames(tx, tx->jb0.cfa);
        if (!tx->disp->commit(tx, skip, &ts))
            tm_restart(tx, TM_ABORT_VALIDATE);
        /* Its counter additions become visible now, not after the quiescence below: a counter
         * reader in a transaction that the quiescence waits for must not wait for this one. */
        tm_ext_counters_apply(tx);
        void (*published)(tm_tx *) = ts ? tx->disp->published : NULL;
        if (ts && tm_must_quiesce(tx->disp) && !tm_hooks.no_privatization(tx)) {
            if (published) { /* still holds locks: see TM_TS_QUIESCING. release: as reader exit */
                TM_LINES(TM_LK_DESC, &tx->shared_ts);
                atomic_store_explicit(&tx->shared_ts, TM_TS_QUIESCING, memory_order_release);
            } else
                tm_reader_exit(tx);
            if (tx->disp->quiesce_ended)
                tm_quiesce_ended(tx, ts);
            else
                tm_quiesce(tx, ts, NULL);
        } else
            tx->oreaders = 0; /* nobody waited for: orec_eager keeps the readers' bits */
        if (published)
            published(tx);
        if (tx->flags & TM_F_READER)
            tm_reader_exit(tx);
    } else if (tx->flags & TM_F_BIASED) {
        tm_ext_counters_apply(tx);
        tm_bias_commit_count(tx); /* counted only, as on the fast path (abi/entry.c) */
        tm_bias_exit(tx);
    } else if (tx->flags & TM_F_SERIAL) {
        /* Closed before the lock is released, not by the commit action after it: adaptive's
         * count below may wait for the serial lock (a mode switch), and the lock's next holder
         * may be an irrevocable transaction reading the counters, which would wait for this
         * descriptor's open sequence lock forever (mt_counter_inside, 8 threads, 2026-11-25). */
        tm_ext_counters_apply(tx);
        tm_serial_release(tx);
    }
    /* Waiters in tm_retry whose watch this commit's writes may touch (ext/): with logs intact. */
    tm_ext_wait_check_commit(tx);
    tm_commit_finish(tx, managed);
}

/* The end of an outermost commit once the transaction's lock or bias is released: adaptive's
 * count, the statistics, the reset, the commit actions. */
void tm_commit_finish(tm_tx *tx, bool managed)
{
    tm_fair_end(tx);
    tm_commit_count_pending(tx);
    if (managed)
        tm_cm_count(tx);
    TM_LINES_END(1);
    if (TM_UNLIKELY(tm_stats_on))
        tm_hooks.stats_commit(tx);
    tm_reset(tx);
    tm_actions_run(tx, 0, true);
}

/* The commit of an outermost speculative attempt (flags exactly TM_F_READER, abi/entry.c's
 * fast path). One that wrote nothing and left nothing to do, the usual end of a lookup while
 * other threads transact, skips what cannot apply to it: its reads were validated as they were
 * made (gl_wt: against the version, which it never took; orec_eager's unlogged read-only
 * attempts: against the snapshot), so the algorithm's commit has nothing to check; it has no
 * commit time, so no privatization wait and no orec to publish; it wrote nothing, so no
 * tm_retry waiter can be concerned (tm_ext_wait_check_commit); no actions, counter additions,
 * logged locals or statistics. Any other goes through tm_commit. (callgrind, an empty
 * transaction under gl_wt at 1 thread: ~120 instructions through tm_commit.) */
void tm_commit_reader(tm_tx *tx)
{
    if ((tx->n_actions | tx->locals.len | tx->ext.npend | (uintptr_t)tx->stats_site) != 0 ||
        TM_UNLIKELY(tm_stats_on) ||
        !(tx->mode == TM_MODE_GLWT ? tx->owned == 0 : tx->mode == TM_MODE_OREC_RO)) {
        tm_commit(tx, 0);
        return;
    }
    tm_reader_exit(tx);
    tm_fair_end(tx);
    if (tm_config.algo->managed)
        tm_cm_count(tx);
    TM_LINES_END(1);
    tm_reset(tx);
}

void tm_go_irrevocable(tm_tx *tx, uintptr_t caller_frame, uintptr_t caller_pc)
{
    if (!tx || tx->nesting == 0 || (tx->flags & TM_F_IRREVOCABLE))
        return;
    if (!(tx->flags & (TM_F_SERIAL | TM_F_BIASED))) {
        TM_LINES_PHASE(TM_LP_IRREV);
        if (!tm_serial_try_upgrade(tx))
            tm_restart(tx, TM_ABORT_SERIAL);
        if (!tx->disp->upgrade(tx, tm_dead_frames(tx, caller_frame)))
            tm_restart(tx, TM_ABORT_VALIDATE); /* keeps the serial lock: reruns serially */
    }
    if (TM_UNLIKELY(tm_stats_on))
        tm_hooks.stats_irrevocable(tx, caller_pc);
    /* From here on nothing can be rolled back: undo records are useless and undo actions can
     * never run (allocations made so far simply persist). */
    tm_set_disp(tx, &tm_disp_direct);
    tx->flags |= TM_F_IRREVOCABLE | ((tx->flags & TM_F_BIASED) ? 0 : TM_F_SERIAL);
    tx->irrevocable_cps = (uint32_t)tx->n_cps;
    tm_undo_reset(&tx->undo);
    tm_wset_reset(&tx->wset);
    tx->rset.n = 0;
    tm_olog_reset(&tx->olog);
    for (size_t i = 0; i < tx->n_actions; i++)
        if (tx->actions[i].kind == TM_ACT_UNDO_USER || tx->actions[i].kind == TM_ACT_FREE_ON_ABORT)
            tx->actions[i].kind = TM_ACT_NONE;
}

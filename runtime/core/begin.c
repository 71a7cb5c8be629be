/* The start of a transaction: the outermost begin's fast paths (biased, adaptive-serial,
 * speculative) and general path, each attempt's choice of execution mode, and nested begins
 * (flattened, or closed with a checkpoint of their own). The end of a transaction (commit,
 * cancel, restart, the switch to irrevocable) is in txn.c, whose header comment describes
 * nesting and the execution modes.
 *
 * Callers and callees: abi/checkpoint.S's fast paths tail-call into here, and
 * stats/stats_begin.c (its paths with statistics on) into tm_begin_serial_counted. From here the
 * algorithm is reached through tm_config.algo and its dispatch table (dispatch.h; adaptive's
 * choice through cm.c), the statistics through their hooks, behind tm_stats_on (hooks.h).
 */
#include <string.h>

#include "config.h"
#include "hooks.h"
#include "serial_fast.h"

TM_HIDDEN void tm_tx_assign_ids(tm_tx *tx);

static tm_checkpoint *tm_cp_push(tm_tx *tx)
{
    if (TM_UNLIKELY(tx->n_cps == tx->cap_cps)) {
        tx->cap_cps = tx->cap_cps ? tx->cap_cps * 2 : 8;
        tx->cps = tm_xrealloc(tx->cps, tx->cap_cps * sizeof *tx->cps, "checkpoint stack");
    }
    return &tx->cps[tx->n_cps++];
}

/* Code path of a transaction that runs alone (bias or serial lock): GCC's uninstrumented code
 * when it cannot cancel (or has nothing else), else instrumented code with undo logging. */
static uint32_t tm_exclusive_code_path(tm_tx *tx, uint32_t prop)
{
    bool can_cancel = !(prop & pr_hasNoAbort);
    if ((prop & pr_uninstrumentedCode) && (!can_cancel || !(prop & pr_instrumentedCode))) {
        tm_set_disp(tx, &tm_disp_direct);
        tx->flags |= TM_F_IRREVOCABLE;
        tx->irrevocable_cps = 1;
        if (TM_UNLIKELY(tm_stats_on))
            tm_hooks.stats_uninstrumented(tx);
        return a_runUninstrumentedCode;
    }
    tm_set_disp(tx, &tm_disp_serial_undo);
    return a_runInstrumentedCode;
}

/* The htm mode's hardware try of an attempt already counted, from C: the descriptor set up as
 * checkpoint.S's TM_OUTER_INIT leaves it for tm_begin_htm (a serial attempt). */
static inline uint32_t tm_begin_htm_serial(uint32_t prop, tm_tx *tx)
{
    tx->irrevocable_cps = 1;
    tx->flags |= TM_F_SERIAL_IRREVOCABLE;
    return tm_begin_htm(prop, tx);
}

/* Chooses the execution mode of a new attempt of the outermost transaction (also restart's). */
uint32_t tm_attempt_start(tm_tx *tx)
{
    TM_LINES_PHASE(TM_LP_BEGIN);
    uint32_t prop = tx->prop;
    bool serial = (prop & pr_doesGoIrrevocable) || !(prop & pr_instrumentedCode) ||
                  (tx->flags & TM_F_FORCE_SERIAL) || tm_config.algo->serial ||
                  (tm_config.algo->managed && tm_cm_run_serial(tx));
    tx->flags &= ~TM_F_FORCE_SERIAL;
    /* The only transacting thread: exclusive without taking the lock. */
    if (!(tx->flags & TM_F_SERIAL) && tm_bias_try_enter(tx)) {
        if (TM_UNLIKELY(tm_stats_on))
            tm_hooks.stats_attempt(tx, false);
        return tm_exclusive_code_path(tx, prop);
    }
    /* A reader is refused while adaptive runs serially (serial.c): it then runs serially too. */
    if (!serial && tm_reader_enter(tx)) {
        /* adaptive: the speculative algorithm is read only now, as a reader (core/cm.c). */
        tm_set_disp(tx, tm_config.algo->managed ? tm_cm_disp(tx) : tm_config.algo->disp);
        tx->disp->begin(tx);
        if (TM_UNLIKELY(tm_stats_on))
            tm_hooks.stats_attempt(tx, false);
        return a_runInstrumentedCode;
    }
    /* The htm mode: a hardware transaction first, as on checkpoint.S's serial path, which
     * takes only those that cannot cancel. One that may cancel runs its uninstrumented code
     * there too when GCC found no irrevocable call in it (tm_htm_can_run): a cancel aborts the
     * hardware transaction, which is its rollback (htm.c), and the fallback takes the lock
     * with undo logging (tm_begin_serial_c). relaxed: as checkpoint.S's load. */
    if (!(tx->flags & TM_F_SERIAL) && atomic_load_explicit(&tm_htm_on, memory_order_relaxed) &&
        tm_htm_can_run(prop)) {
        if (TM_UNLIKELY(tm_stats_on))
            tm_hooks.stats_attempt(tx, true);
        return tm_begin_htm_serial(prop, tx);
    }
    if (!(tx->flags & TM_F_SERIAL))
        tm_serial_acquire(tx); /* times its waits, if any, for the statistics */
    if (TM_UNLIKELY(tm_stats_on))
        tm_hooks.stats_attempt(tx, true);
    return tm_exclusive_code_path(tx, prop);
}

static uint32_t tm_nested_code_path(tm_tx *tx, uint32_t prop)
{
    if (tx->disp == &tm_disp_direct && (prop & pr_uninstrumentedCode))
        return a_runUninstrumentedCode;
    if (prop & pr_instrumentedCode)
        return a_runInstrumentedCode;
    tm_go_irrevocable(tx, tm_cp_jb(tx, tx->n_cps - 1)->cfa, tm_cp_jb(tx, tx->n_cps - 1)->pc);
    return a_runUninstrumentedCode;
}

/* The state every outermost transaction starts from (checkpoint 0 already holds the registers
 * and, being the outermost, log marks of zero). Needs an allocated checkpoint stack and ids.
 * checkpoint.S's TM_OUTER_INIT does the same for its fast paths: keep the two in step. */
static inline __attribute__((always_inline)) void tm_outer_init(tm_tx *tx, uint32_t prop)
{
    tx->n_cps = 1;
    tx->prop = prop;
    tx->retries = 0;
    tx->nesting = 1;
    tx->eh_saved = false;
    tx->id = tx->id_next++;
}

/* The general outermost begin (first transaction of a descriptor, id block exhausted, or any
 * transaction that cannot take the biased fast path). */
TM_HIDDEN uint32_t tm_begin_outer_general(uint32_t prop, tm_tx *tx); /* also checkpoint.S's */
__attribute__((noinline)) uint32_t tm_begin_outer_general(uint32_t prop, tm_tx *tx)
{
    /* Checkpoint 0's log marks are always zero: only the registers and properties change.
     * Allocated before any ids are taken: the fast paths rely on ids implying the stack. */
    if (TM_UNLIKELY(tx->cap_cps == 0)) {
        tm_cp_push(tx);
        memset(tx->cps, 0, sizeof *tx->cps);
        tx->cps[0].disp_before = &tm_disp_direct;
    }
    if (TM_UNLIKELY(tx->id_next == tx->id_end))
        tm_tx_assign_ids(tx);
    /* The SSE and x87 control words are callee-saved (SysV ABI), so a restart or cancel restores
     * them (tm_longjmp). checkpoint.S's fast path leaves them to here, where no code has run that
     * could change them: only an attempt that can roll back needs them, and the biased and
     * adaptive-serial paths never roll back. There `stmxcsr` alone cost ~4.5 ns, a third of an
     * empty transaction (AMD EPYC, 2026-11-23). */
    tx->jb0.mxcsr = __builtin_ia32_stmxcsr();
    __asm__("fnstcw %0" : "=m"(tx->jb0.fpcw));
    tm_outer_init(tx, prop);
    tx->irrevocable_cps = 0;
    return tm_attempt_start(tx) | a_saveLiveVariables;
}

/* The rest of a serial start once the lock is held and readers are drained or excluded: the
 * attempt runs GCC's uninstrumented code and never rolls back, so it is counted whole, unless
 * checkpoint.S counted it before it took the lock (`counted`). */
static inline __attribute__((always_inline)) uint32_t tm_begin_serial_held(tm_tx *tx,
                                                                          bool counted)
{
    tx->flags |= TM_F_IRREVOCABLE;
    tx->irrevocable_cps = 1; /* the descriptor is in direct mode between transactions */
    if (TM_UNLIKELY(tm_stats_on) && !counted)
        tm_hooks.stats_attempt_whole(tx, true);
    return a_runUninstrumentedCode | a_saveLiveVariables;
}

/* The exclusive start of adaptive's serial mode, once tm_outer_init has run: readers are
 * excluded, so the serial lock alone, with no drain, makes this transaction exclusive, as the
 * program's mutex did (core/serial.c); if the mode ended meanwhile, the lock's acquisition
 * drains them. */
static inline __attribute__((always_inline)) uint32_t tm_begin_serial_excl(tm_tx *tx,
                                                                          bool counted)
{
    if (!tm_serial_trylock_fast(tx))
        tm_serial_acquire(tx); /* waits, and times the wait for the statistics */
    return tm_begin_serial_held(tx, counted);
}

/* The speculative start of an outermost transaction: the usual begin while other threads
 * transact and adaptive (or the algorithm) runs speculatively. It does what
 * tm_begin_outer_general and tm_attempt_start do for such an attempt and skips what cannot apply
 * to it: the checkpoint stack and ids are there, no flag is left from a restart, the statistics
 * are off, the transaction has an instrumented path and does not go irrevocable at once, and the
 * bias is someone else's (checkpoint.S looked; one granted to us since is harmless: a bias owner
 * may run speculatively). Anything else goes the general way. The serial decision is the serial
 * lock's: while adaptive runs serially readers are excluded, so the reader entry fails and the
 * attempt takes the lock, as tm_attempt_start would have (core/serial.c). Through
 * tm_begin_outer_general an empty speculative transaction under gl_wt cost ~150 instructions
 * to begin, ~270 with its commit (callgrind, 1 thread, 2026-11-27); a short transaction at 2
 * threads, a hash-set lookup of ~5 reads, paid more for these two than for its barriers.
 * checkpoint.S comes here for transactions that cannot cancel (and tm_begin_outer_serial, when
 * checkpoint.S left them to tm_begin_outer: the counting build); those that may cancel take the
 * general begin, which can run them biased with undo logging. */
TM_HIDDEN uint32_t tm_begin_outer_spec(uint32_t prop, tm_tx *tx); /* also checkpoint.S's */
uint32_t tm_begin_outer_spec(uint32_t prop, tm_tx *tx)
{
    const tm_algo *algo = tm_config.algo;
    if (TM_UNLIKELY(tx->cap_cps == 0 || tx->id_next == tx->id_end || tx->flags != 0 ||
                    tm_stats_on || algo->serial ||
                    (prop & (pr_instrumentedCode | pr_doesGoIrrevocable)) != pr_instrumentedCode))
        return tm_begin_outer_general(prop, tx);
    tx->jb0.mxcsr = __builtin_ia32_stmxcsr(); /* as tm_begin_outer_general: it may roll back */
    __asm__("fnstcw %0" : "=m"(tx->jb0.fpcw));
    tm_outer_init(tx, prop);
    tx->irrevocable_cps = 0;
    TM_LINES_PHASE(TM_LP_BEGIN);
    int r = tm_reader_try_enter(tx); /* a writer holds the lock (r < 0): wait, as a reader */
    if (TM_UNLIKELY(r <= 0) && (r == 0 || !tm_reader_enter(tx))) {
        tm_serial_acquire(tx); /* readers excluded: adaptive runs serially */
        return tm_exclusive_code_path(tx, prop) | a_saveLiveVariables;
    }
    /* adaptive: the speculative algorithm is read only now, as a reader (core/cm.c). */
    tm_set_disp(tx, algo->managed ? tm_cm_disp(tx) : algo->disp);
    tx->disp->begin(tx);
    return a_runInstrumentedCode | a_saveLiveVariables;
}

/* The second fast path (same preconditions as the biased one). Out of line so the biased path
 * needs no frame. */
static __attribute__((noinline)) uint32_t tm_begin_outer_serial(uint32_t prop, tm_tx *tx)
{
    if (!tm_serial_excluding())
        return tm_begin_outer_spec(prop, tx);
    tm_outer_init(tx, prop);
    return tm_begin_serial_excl(tx, false);
}

/* The serial start of an attempt the statistics counted already, before the lock: checkpoint.S's
 * serial path with statistics on, when its batch could not take the attempt
 * (stats/stats_begin.c: tm_begin_serial_stats counts it, then comes here). In the htm mode a
 * hardware transaction first, as on checkpoint.S's path: the statistics must not change where
 * attempts run (a thread that alternates between sites comes here at most attempts; without
 * this, memcached's profile showed 13% of its htm-mode commits in hardware where 99% are). */
uint32_t tm_begin_serial_counted(uint32_t prop, tm_tx *tx)
{
    tm_outer_init(tx, prop);
    /* relaxed: as checkpoint.S's load; the hardware transaction reads the serial words again */
    if (atomic_load_explicit(&tm_htm_on, memory_order_relaxed))
        return tm_begin_htm_serial(prop, tx);
    return tm_begin_serial_excl(tx, true);
}

/* checkpoint.S's serial path, before it saved any register but the return address (jb0.pc,
 * the statistics' site; nothing reads the rest for an attempt that cannot roll back), when its
 * own compare-and-swap cannot take the lock. Waits if it must; drains
 * the readers if the serial mode ended meanwhile (tm_serial_trylock_fast, tm_serial_acquire).
 * Saving the registers and going through tm_begin_outer for such an attempt cost ~15
 * instructions of a serial transaction's ~125 (counter at 2 threads, callgrind). checkpoint.S
 * already did tm_outer_init's work (TM_OUTER_FIELDS: its id must not be taken twice) and,
 * with statistics on, counted the attempt. */
TM_HIDDEN uint32_t tm_begin_serial_c(uint32_t prop, tm_tx *tx);
uint32_t tm_begin_serial_c(uint32_t prop, tm_tx *tx)
{
    tx->cm.bias_streak = 0; /* contended: no bias for this thread yet (bias.c) */
    if (TM_UNLIKELY(!(prop & pr_hasNoAbort))) {
        /* The hardware path's fallback for one that may cancel (tm_attempt_start): the lock,
         * then the code path any exclusive attempt of it takes (undo logging). */
        tx->flags &= ~TM_F_SERIAL_IRREVOCABLE;
        tx->irrevocable_cps = 0;
        tm_serial_acquire(tx);
        return tm_exclusive_code_path(tx, prop);
    }
    return tm_begin_serial_excl(tx, true);
}

/* The same after checkpoint.S took the lock and found that readers are no longer excluded
 * (adaptive left serial mode in between), atomics on the orecs, or a bias to take back: drain
 * them or take it, as tm_serial_trylock_fast would. */
TM_HIDDEN uint32_t tm_begin_serial_locked(uint32_t prop, tm_tx *tx);
uint32_t tm_begin_serial_locked(uint32_t prop, tm_tx *tx)
{
    (void)prop;
    tm_serial_locked(tx); /* drains unless excluded; sets TM_F_SERIAL */
    return tm_begin_serial_held(tx, true); /* counted by checkpoint.S, if statistics are on */
}

/* Outermost begin; tx->jb0 already holds the checkpoint (written by checkpoint.S). Every call
 * out of the fast path is a tail call, so the fast path needs no stack frame. */
TM_HIDDEN uint32_t tm_begin_outer(uint32_t prop, tm_tx *tx);
uint32_t tm_begin_outer(uint32_t prop, tm_tx *tx)
{
    TM_LINES_PHASE(TM_LP_BEGIN);
    /* Fast path: the only transacting thread, a transaction that cannot cancel: run the
     * uninstrumented code with no lock at all (core/bias.c). The descriptor is already in
     * direct mode between transactions. */
    if (TM_UNLIKELY(tx->id_next == tx->id_end ||
                    (prop & (pr_hasNoAbort | pr_uninstrumentedCode)) !=
                        (pr_hasNoAbort | pr_uninstrumentedCode)))
        return tm_begin_outer_general(prop, tx);
    if (TM_UNLIKELY(!tm_bias_try_enter(tx)))
        return tm_begin_outer_serial(prop, tx);
    tm_outer_init(tx, prop);
    tx->flags |= TM_F_IRREVOCABLE;
    tx->irrevocable_cps = 1;
    if (TM_UNLIKELY(tm_stats_on))
        tm_hooks.stats_attempt_whole(tx, false);
    return a_runUninstrumentedCode | a_saveLiveVariables;
}

/* Any begin the assembly fast path did not take: first transaction of a thread, or nested. */
TM_HIDDEN uint32_t tm_begin(uint32_t prop, const tm_jmpbuf *jb);
uint32_t tm_begin(uint32_t prop, const tm_jmpbuf *jb)
{
    tm_tx *tx = tm_self();
    if (tx->nesting == 0) {
        tx->jb0 = *jb;
        return tm_begin_outer(prop, tx);
    }
    if (prop & pr_hasNoAbort) {
        tx->nesting++;
        return tm_nested_code_path(tx, prop);
    }
    if (!(prop & pr_instrumentedCode)) {
        /* GCC's uninstrumented code of an outermost transaction that may cancel, run in
         * hardware (tm_attempt_start): its fallback runs the instrumented code */
        if (tx->flags & TM_F_HTM)
            tm_htm_abort();
        tm_fatal("a nested transaction that may cancel has no instrumented code path "
                 "(properties 0x%x)", prop);
    }
    tm_checkpoint *cp = tm_cp_push(tx);
    cp->jb = *jb;
    cp->prop = prop;
    cp->nesting = tx->nesting;
    cp->undo_mark = tx->undo.len;
    cp->locals_mark = tx->locals.len;
    cp->wset_len = tx->wset.n;
    cp->wset_undo_mark = tx->wset.undo_n;
    cp->wset_nest_mark = tx->wset.nest_mark;
    cp->actions_mark = tx->n_actions;
    cp->counters_mark = tx->ext.npend;
    cp->catch_count = tx->catch_count;
    cp->disp_before = tx->disp;
    cp->flags_before = tx->flags;
    tx->wset.nest_mark = tx->wset.n;
    if (tx->disp == &tm_disp_direct) /* irrevocable parent: log this part so it can cancel */
        tm_set_disp(tx, &tm_disp_serial_undo);
    tx->nesting++;
    return a_runInstrumentedCode | a_saveLiveVariables;
}

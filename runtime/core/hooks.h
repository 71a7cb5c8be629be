/* The upward hooks: every call core makes into a layer above it, apart from the algorithm's
 * dispatch table (dispatch.h).
 *
 * The runtime's layers, top to bottom: abi (the _ITM_* entry points) -> ext (tmkit.h's
 * extensions) -> stats (per-site counters) -> algo (the algorithms behind the dispatch table) ->
 * core (descriptor, logs, serial lock, begin/commit/abort, configuration). A layer includes and
 * calls the layers below it freely; it reaches a layer above it only through the dispatch table
 * and through this table, which each upper layer fills in for itself at start-up (its *_hooks.c,
 * a constructor of priority TM_INIT_HOOKS). tests/unit/test_layers.sh checks both rules on the
 * sources and on the object files. So a reader of core/ follows a begin or a commit here, without
 * opening the layers above: what each entry is for, who fills it in and where core calls it.
 *
 * Until the constructors run, and where an upper layer leaves an entry alone, an entry holds
 * core's default (hooks.c), which does nothing. The constructors run before any other thread of
 * the process exists and before the configuration is read (TM_INIT_CONFIG), and nothing writes
 * the table again, so it is read with plain loads: thread creation orders the stores before
 * everything a new thread does.
 *
 * Cost: a hook call is one indirect call where a direct call was, and every statistics hook sits
 * behind the same TM_UNLIKELY(tm_stats_on) test as before, so with statistics off the paths cost
 * the instructions they did (bench/fastpath_budget.sh). The counters' and waits' hooks are called
 * only when the descriptor says the transaction used them (the inline functions below).
 */
#ifndef TMKIT_HOOKS_H
#define TMKIT_HOOKS_H

#include "serial_fast.h"
#include "tx.h"

/* Constructor priorities, in the order they run (GCC keeps 0-100 for itself; constructors of
 * one priority run in link order, runtime/CMakeLists.txt). */
#define TM_INIT_HOOKS 101  /* the upper layers fill in tm_hooks; libc_direct.c finds glibc's */
#define TM_INIT_CONFIG 102 /* config.c reads TMKIT_*: the algorithms and statistics by hook */
#define TM_INIT_CORE 103   /* serial.c, bias.c, serial_handoff.c: set up from the configuration */
#define TM_INIT_HTM 104    /* htm.c: looks for RTM */

typedef struct tm_hooks {
    /* ---- stats (stats/stats_hooks.c). Called only while tm_stats_on, except the last four. */
    /* An attempt starts, speculative or (serial) under the serial lock (begin.c). */
    void (*stats_attempt)(tm_tx *tx, bool serial);
    /* An attempt that cannot abort starts and is counted whole: biased, or (serial) under the
     * serial lock (begin.c, where abi/checkpoint.S did not count it itself). */
    void (*stats_attempt_whole)(tm_tx *tx, bool serial);
    /* The attempt just counted by stats_attempt runs GCC's uninstrumented code alone (begin.c). */
    void (*stats_uninstrumented)(tm_tx *tx);
    /* An outermost commit, after the release (txn.c: tm_commit_finish). */
    void (*stats_commit)(tm_tx *tx);
    /* The outermost attempt rolls back: a conflict, a wait or a cancel (txn.c). */
    void (*stats_abort)(tm_tx *tx, tm_abort_reason why);
    /* A nested transaction cancels (txn.c). */
    void (*stats_nested_cancel)(tm_tx *tx);
    /* A speculative or serial attempt goes irrevocable at caller_pc (txn.c). */
    void (*stats_irrevocable)(tm_tx *tx, uintptr_t caller_pc);
    /* A hardware-transaction try of the attempt ended (htm.c): status is _xbegin's abort
     * status, or TM_HTM_COMMITTED when it committed. */
    void (*stats_htm)(tm_tx *tx, unsigned status);
    /* The TSC cycles an attempt waited for the serial lock or its drain (serial.c). */
    void (*stats_serial_wait)(tm_tx *tx, uint64_t cycles);
    /* The TSC cycles a committed writer waited for privatization safety (serial.c). */
    void (*stats_quiesce_wait)(tm_tx *tx, uint64_t cycles);
    /* A thread gives its descriptor back (thread.c: its batch's count to its site). */
    void (*stats_thread_exit)(tm_tx *tx);
    /* fork()'s child, after core's own state (thread.c). */
    void (*stats_fork_child)(void);
    /* TMKIT_STATS (config.c): the report's destination, "-" for a table on stderr, NULL for
     * none but counting on (TMKIT_STATS_SHM). */
    void (*stats_configure)(const char *dest);
    /* TMKIT_STATS_SHM (config.c): NULL once the segment is set up, or the rule `name` breaks
     * (then nothing is done: config.c stops the program with it). */
    const char *(*stats_shm_configure)(const char *name);

    /* ---- ext (ext/ext_hooks.c). */
    /* The transaction's counter additions (ext.npend > 0) become visible: its commit, or the
     * end of its thread inside it (txn.c, htm.c, thread.c: tm_ext_counters_apply). */
    void (*counters_apply)(tm_tx *tx);
    /* A rollback to a checkpoint whose mark of the additions is below ext.npend (txn.c). */
    void (*counters_undo)(tm_tx *tx, size_t mark);
    /* The cancel of an attempt that asked to wait (ext.req set: tm_retry, tm_cond_wait): roll
     * back, sleep, run again. Never returns (txn.c: tm_cancel). */
    void (*wait_and_restart)(tm_tx *tx);
    /* A commit that may have written, while tm_serial_rwait says tm_retry waiters sleep: wake
     * those its writes may concern (txn.c, htm.c: tm_ext_wait_check_commit). */
    void (*wait_wake)(tm_tx *tx);
    /* May this commit skip its privatization wait (tmkit_no_privatization)? (txn.c) */
    bool (*no_privatization)(const tm_tx *tx);
    /* A thread gives its descriptor back: it leaves the lock groups it holds (thread.c). */
    void (*ext_thread_exit)(tm_tx *tx);
    /* fork()'s child, after the statistics (thread.c). */
    void (*ext_fork_child)(tm_tx *self);

    /* ---- algo (algo/algo_hooks.c). */
    /* Every algorithm TMKIT_ALGO may name, NULL-terminated, the default first (config.c). */
    const tm_algo *const *algos;
    /* The speculative algorithm of each of adaptive's modes (TM_CM_GLWT...; NULL for the
     * serial ones), which an attempt in that mode runs (cm.c: tm_cm_disp). */
    const tm_dispatch *adaptive_modes[TM_CM_N_MODES];
    /* A thread takes a descriptor (thread.c: tm_tx_create, outside any transaction): allocate
     * tm_tx.algo_state, so that no transaction's begin has to. */
    void (*algo_state_init)(tm_tx *tx);
    /* A descriptor goes back to the pool: free tm_tx.algo_state (thread.c: tm_tx_scrub). */
    void (*algo_state_free)(tm_tx *tx);

    /* ---- abi (abi/abi_hooks.c). */
    /* A rollback to a checkpoint (txn.c): end the catches opened since (catch_count down to
     * catch_target) and, for the outermost one, drop the exception in flight and restore the
     * count of uncaught exceptions (abi/eh.c). */
    void (*eh_rollback)(tm_tx *tx, uint32_t catch_target, bool outer);
} tm_hooks_t;

extern tm_hooks_t tm_hooks TM_HIDDEN;

/* Hook variables, also core's, that an upper layer writes and core only reads: */
/* Statistics are on (TMKIT_STATS or TMKIT_STATS_SHM): set by stats/ while the configuration is
 * read (TM_INIT_CONFIG) and cleared by its report at exit (stats/stats_report.c); read by every
 * path that counts, abi/checkpoint.S's included. A plain bool, as it was in stats/. */
extern bool tm_stats_on TM_HIDDEN;
/* Threads asleep in tm_retry or tm_cond_wait (ext/wait.c counts them). While there are any, the
 * program hands work from thread to thread, and a contended serial-lock waiter skips its
 * passive phase (serial.c): a waiter sleeping 10-50 us without registering delays every
 * hand-off (a 1-producer/2-consumer queue ran at 0.6x of the condition-variable version with
 * the passive phase, ~1.1x without, 2026-11-24). */
extern _Atomic uint32_t tm_wait_sleepers TM_HIDDEN;

/* The counters' hooks, called only when the transaction made additions. */
static inline void tm_ext_counters_apply(tm_tx *tx)
{
    if (tx->ext.npend)
        tm_hooks.counters_apply(tx);
}

static inline void tm_ext_counters_undo(tm_tx *tx, size_t mark)
{
    if (tx->ext.npend > mark)
        tm_hooks.counters_undo(tx, mark);
}

/* A writing commit's test: does anybody wait in tm_retry? Relaxed: the waiter that raises the
 * flag forces a barrier on every thread (membarrier, ext/waiters.c) before it checks its read
 * set, so a commit that misses the flag here wrote before that barrier and the waiter sees its
 * writes. */
static inline void tm_ext_wait_check_commit(tm_tx *tx)
{
    uint32_t r = atomic_load_explicit(&tm_serial_rwait, memory_order_relaxed);
    if (TM_UNLIKELY(r & (TM_RWAIT_RETRY | TM_RWAIT_FENCE))) {
        if (r & TM_RWAIT_FENCE) { /* no membarrier: the writer's half of the handshake */
            atomic_thread_fence(memory_order_seq_cst);
            r = atomic_load_explicit(&tm_serial_rwait, memory_order_relaxed);
        }
        if (r & TM_RWAIT_RETRY)
            tm_hooks.wait_wake(tx);
    }
}

#endif

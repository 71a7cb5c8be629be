/* Contention management of the adaptive algorithm: choose, for the whole process, among the ways
 * of running transactions, by measuring which is cheapest. The default set keeps libitm's
 * visible semantics: every mode in it writes memory in place (write-through) or runs alone, so a
 * transaction's own writes are in memory for plain and transaction_pure code in the same
 * thread, and nothing such code writes is overwritten at commit (docs/algorithms.md, "Redo logs
 * and the programs written for libitm"):
 *   GL_WT   speculative gl_wt (global versioned lock, write-through): no redo-log lookups and
 *           no commit-time write-back, cheapest for short transactions that rarely meet;
 *   SERIAL  GCC's uninstrumented code under the serial lock, like the mutex the program had:
 *           cheapest when transactions mostly conflict;
 *   OREC_EAGER  speculative orec_eager (per-location locks taken at the first write,
 *           write-through with an undo log): writers of different words share no line but the
 *           clock, so it scales where gl_wt serializes every writer, and a long transaction is
 *           not aborted by every commit of another (gl_wt's single version is). It pays
 *           per-access orec work and commit-time quiescence, so it is probed only while
 *           TM_CM_OREC_THREADS or more threads run transactions: 2 since 2026-11-24 (it was 4;
 *           at 2 threads the prime showcase, tens of microseconds of computing a transaction,
 *           lost 38% of its time to gl_wt's aborts and ran 1.53x faster with orec_eager in
 *           the set, while the rest of the suite moved by a geomean of 1.035x, every case
 *           within the noise: bench/results/scaling, its Record).
 * With TMKIT_ADAPTIVE_MODES=all, for programs that follow the rules of redo-log algorithms, two
 * more:
 *   NOREC   speculative NOrec (value validation, commits serialized on one sequence lock):
 *           cheapest when transactions read much and write little;
 *   OREC_LAZY  speculative orec_lazy (commit-time locking, redo log), probed like OREC_EAGER.
 * Until 2026-11-24 the set was NOrec, gl_wt, serial and orec_lazy, and published programs broke
 * on it (tests/conformance/c_redo_*.c): GCC itself emits plain memcpy/memset calls inside
 * transaction clones, which read stale memory under a redo log.
 *
 * The choice must be process-wide: a thread probing speculation while another runs serially only
 * waits for the serial lock, so per-thread choices never discover that speculation pays.
 *  - Time is cut into epochs (TM_CM_EPOCH cycles) and a mode's cost is measured over a whole
 *    epoch as the process sees it: TSC cycles per transaction committed by any thread, and per
 *    commit of a transaction the compiler did not flag read-only, the figure compared first
 *    (tm_cm_price: pollers' read-only commits are not progress). Every descriptor counts its
 *    own commits; the deciding thread sums the counts. (An earlier
 *    version averaged per-thread windows of 128 commits; a thread starved by the others then
 *    closed few windows, so a mode in which one thread ran and the other kept aborting looked
 *    as cheap as its winner alone: gl_wt beat serial with writes of 64 words at 2 threads
 *    while having half its throughput.)
 *  - When an epoch ends, the first thread to notice (each thread looks every TM_CM_WINDOW
 *    commits) decides: after a probe epoch, the probed mode wins if it was cheaper than the
 *    incumbent by more than the noise, or, for a speculative mode against a serial one, if it
 *    cost no more than a little above it (tm_cm_wins); the incumbent keeps winning for `run`
 *    epochs, doubling after every lost probe (up to TM_CM_RUN_MAX), then the next other mode
 *    (round robin) is probed:
 *    a quarter epoch of warm-up, not measured (right after a switch, threads are still
 *    leaving the old mode's back-off and sleepers on the serial lock have not settled, and
 *    with more threads than cores single epochs of serial mode measured from 111 to 662
 *    cycles per commit: bank at 4 threads on 2 cores, 2026-11-22), then one measured epoch,
 *    cut short a quarter in if the challenger already costs twice the incumbent (it has lost
 *    whatever the rest would show). Until 2026-11-24 the warm-up was a whole epoch and every
 *    probe ran two: serial probes of empty transactions at 2 threads then took 14-24 of ~195
 *    epochs, now ~8.
 *  - Probing is not free: a probe runs a mode that usually loses, and serial mode for read-only
 *    transactions at 2 threads costs 2-4x. With the back-off capped at 64 epochs, probes cost
 *    adaptive 10-17% of NOrec's throughput on empty transactions at 2 threads (3 s runs; ~0%
 *    with probing off, 2026-11-23). The cap is now 256 epochs (~0.4 s), and what keeps adaptive
 *    quick to follow a change of workload is the incumbent's own cost: when its moving average
 *    rises past twice what it was when it last beat a challenger, the back-off restarts at 2
 *    (3/2 fired on the noise of a 2-vCPU VM alone).
 *  - The speculative algorithms must never run at once (each validates against its own
 *    global metadata: NOrec's sequence lock, gl_wt's version, the orecs and their clock), so
 *    the speculative algorithm changes only while the decider holds the serial lock, which
 *    drains every speculative transaction; attempts read it after entering as serial-lock
 *    readers (begin.c), so it cannot change under a running attempt. A writer quiescing for
 *    privatization stops waiting when the algorithm changed: the drain already waited for every
 *    transaction that started before its commit (tm_cm_algo_switched, serial.c).
 * Shared writes: a few per epoch (the decision). The decider reads every descriptor's count once
 * per epoch, so each owner takes one cache miss per ~1.5 ms on that line.
 * Individual transactions still fall back to serial after TMKIT_MAX_RETRIES failed attempts
 * (txn.c), so nothing livelocks whatever this policy decides.
 * The modes' algorithms are algo/'s: their dispatch tables come through the hook adaptive_modes
 * (hooks.h, filled in by algo/algo_hooks.c), and a probe of a mode first calls its table's
 * `prepare` (the orec algorithms map their table: algo/orec_locks.c).
 */
#include "cm_state.h"

/* The modes (cm_state.h says what the fields mean). */
const struct tm_cm_mode tm_cm_modes[TM_CM_N_MODES] = {
    [TM_CM_GLWT] = {"gl_wt", false, false},
    [TM_CM_SERIAL] = {"serial", false, false},
    [TM_CM_OREC_EAGER] = {"orec_eager", false, true},
    [TM_CM_NOREC] = {"norec", true, false},
    [TM_CM_OREC_LAZY] = {"orec_lazy", true, true},
    [TM_CM_HTM] = {"htm", false, false},
};

/* The decision state (cm_state.h). */
struct tm_cm_state tm_cm;

const char *tm_cm_mode_name(unsigned mode) { return tm_cm_modes[mode].name; }

/* May adaptive use this mode now? (TMKIT_ADAPTIVE_MODES, and the orec modes' thread count) */
bool tm_cm_usable(uint32_t m, uint32_t threads)
{
    return (!tm_cm_modes[m].redo || tm_config.adaptive_modes == TM_ADAPTIVE_ALL) &&
           (!tm_cm_modes[m].many || threads >= TM_CM_OREC_THREADS) &&
           (m != TM_CM_HTM || tm_htm_available);
}

bool tm_cm_mode_allowed(unsigned mode)
{
    return (!tm_cm_modes[mode].redo || tm_config.adaptive_modes == TM_ADAPTIVE_ALL) &&
           (mode != TM_CM_HTM || tm_htm_available);
}

void tm_cm_switch(tm_tx *tx, uint32_t mode)
{
    /* Every change is made under the serial lock, which drains every speculative attempt and
     * keeps new ones out (unless readers were already excluded: then none runs). relaxed
     * stores: the lock's release (unlock) and its readers' seq_cst entry order them before any
     * attempt that reads them. */
    tm_serial_acquire(tx);
    if (!tm_cm_serial_mode(mode) && mode != atomic_load_explicit(&tm_cm.spec, memory_order_relaxed)) {
        atomic_store_explicit(&tm_cm.spec, mode, memory_order_relaxed);
        atomic_fetch_add_explicit(&tm_cm.spec_gen, 1, memory_order_relaxed);
    }
    /* Serial mode excludes readers, so its transactions skip the drain (serial.c). HTM: the
     * flag only chooses the path (checkpoint.S); a hardware transaction itself checks that
     * readers are excluded, so a stale read of it is harmless. */
    tm_serial_exclude_readers(tm_cm_serial_mode(mode));
    atomic_store_explicit(&tm_htm_on, mode == TM_CM_HTM, memory_order_relaxed);
    if (mode != atomic_load_explicit(&tm_cm.mode, memory_order_relaxed))
        atomic_fetch_add_explicit(&tm_cm.switches, 1, memory_order_relaxed);
    atomic_store_explicit(&tm_cm.mode, mode, memory_order_relaxed);
    tm_serial_release(tx);
}

/* Every TM_CM_WINDOW commits of a descriptor (tm_cm_count): has the epoch ended? */
void tm_cm_window(tm_tx *tx)
{
    uint64_t now = tm_cm_now(), span = now - tx->cm.window_at;
    /* This thread's time per commit (the back-off after an abort reads it: txn.c) */
    if (tx->cm.window_at)
        tx->cm.commit_cycles = span / TM_CM_WINDOW > UINT32_MAX ? UINT32_MAX
                                                                 : (uint32_t)(span / TM_CM_WINDOW);
    tx->cm.window_at = now;
    if (!tm_config.algo->managed)
        return; /* serialirr's commit fast path counts too */
    /* relaxed: epoch_end only says when to try for `busy`, whose acquire orders the rest. */
    if (now >= atomic_load_explicit(&tm_cm.epoch_end, memory_order_relaxed) &&
        !atomic_exchange_explicit(&tm_cm.busy, 1, memory_order_acquire)) {
        /* acquire/release on busy: one decider at a time sees the previous decider's state. */
        TM_LINES(TM_LK_CM, &tm_cm.busy); /* the decider's stores are counted as this line */
        if (now >= atomic_load_explicit(&tm_cm.epoch_end, memory_order_relaxed))
            tm_cm_decide(tx, now);
        atomic_store_explicit(&tm_cm.busy, 0, memory_order_release);
    }
}

/* fork(): the child's only thread may inherit a `busy` flag some other thread held. */
void tm_cm_fork_child(void)
{
    atomic_store_explicit(&tm_cm.busy, 0, memory_order_relaxed);
}

bool tm_cm_run_serial(tm_tx *tx)
{
    (void)tx;
    return tm_cm_serial_mode(atomic_load_explicit(&tm_cm.mode, memory_order_relaxed));
}

/* The speculative algorithm for an attempt that has entered as a serial-lock reader. */
const tm_dispatch *tm_cm_disp(tm_tx *tx)
{
    /* relaxed: ordered by the reader entry (see tm_cm_switch). */
    tx->cm.spec_gen = atomic_load_explicit(&tm_cm.spec_gen, memory_order_relaxed);
    return tm_hooks.adaptive_modes[atomic_load_explicit(&tm_cm.spec, memory_order_relaxed)];
}

bool tm_cm_algo_switched(const tm_tx *tx)
{
    /* relaxed: a stale value only makes the quiescing writer wait longer. */
    return atomic_load_explicit(&tm_cm.spec_gen, memory_order_relaxed) != tx->cm.spec_gen;
}

uint64_t tm_cm_epochs(unsigned mode)
{
    return atomic_load_explicit(&tm_cm.epochs[mode], memory_order_relaxed);
}

uint64_t tm_cm_probes(unsigned mode)
{
    return atomic_load_explicit(&tm_cm.probes[mode], memory_order_relaxed);
}

uint64_t tm_cm_cost(unsigned mode) { return tm_cm_est(mode); }

uint64_t tm_cm_cost_writing(unsigned mode) { return tm_cm_estw(mode); }

uint64_t tm_cm_switches(void) { return atomic_load_explicit(&tm_cm.switches, memory_order_relaxed); }
uint64_t tm_cm_grant_trials(void) { return atomic_load_explicit(&tm_cm.grant_trials, memory_order_relaxed); }
uint64_t tm_cm_grants_off_epochs(void)
{
    return atomic_load_explicit(&tm_cm.grants_off_epochs, memory_order_relaxed);
}
/* One of the descriptors' own counts (at byte offset `off` in tm_tx), summed over the
 * registry. relaxed: as tm_cm_commits. */
static uint64_t tm_cm_sum_own(size_t off)
{
    uint64_t sum = 0;
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_acquire))
        sum += atomic_load_explicit((_Atomic uint64_t *)((char *)t + off), memory_order_relaxed);
    return sum;
}
/* Restarts without back-off (txn.c: tm_backoff); turns claimed by threads that kept
 * restarting, and begins that waited for one (fair.c). */
uint64_t tm_cm_quick_restarts(void) { return tm_cm_sum_own(offsetof(tm_tx, cm.quick_restarts)); }
uint64_t tm_cm_fair_claims(void) { return tm_cm_sum_own(offsetof(tm_tx, cm.fair_claims)); }
uint64_t tm_cm_fair_waits(void) { return tm_cm_sum_own(offsetof(tm_tx, cm.fair_waits)); }

uint64_t tm_cm_plain_trials(void) { return atomic_load_explicit(&tm_cm.plain_trials, memory_order_relaxed); }
uint64_t tm_cm_plain_epochs(void) { return atomic_load_explicit(&tm_cm.plain_epochs, memory_order_relaxed); }

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
#include "config.h"
#include "hooks.h"
#include "serial_fast.h"

#define TM_CM_EPOCH 4000000ull /* TSC cycles: ~1.5 ms */
#define TM_CM_WARM (TM_CM_EPOCH / 4) /* a probe's unmeasured start */
#define TM_CM_RUN_MAX 256u
#define TM_CM_OREC_THREADS 2u

/* The modes (tx_modules.h: TM_CM_GLWT...): their names in the statistics, whether they buffer
 * writes (redo log: only with TMKIT_ADAPTIVE_MODES=all) and whether they are worth probing only
 * with TM_CM_OREC_THREADS or more transacting threads. The speculative algorithm each one runs
 * is algo/'s to say (hooks.h: adaptive_modes, filled in by algo/algo_hooks.c; NULL: serial). */
static const struct tm_cm_mode {
    const char *name;
    bool redo, many;
} tm_cm_modes[TM_CM_N_MODES] = {
    [TM_CM_GLWT] = {"gl_wt", false, false},
    [TM_CM_SERIAL] = {"serial", false, false},
    [TM_CM_OREC_EAGER] = {"orec_eager", false, true},
    [TM_CM_NOREC] = {"norec", true, false},
    [TM_CM_OREC_LAZY] = {"orec_lazy", true, true},
    [TM_CM_HTM] = {"htm", false, false},
};

/* The serial modes: readers excluded, GCC's uninstrumented code (HTM: in hardware
 * transactions, core/htm.c, where the CPU has RTM). */
static inline bool tm_cm_serial_mode(uint32_t m) { return m == TM_CM_SERIAL || m == TM_CM_HTM; }

/* Commits, those of them not flagged read-only (tx.h: cm.wcommits), and the htm mode's attempts
 * that took the lock instead of a hardware transaction (cm.hwmissed). */
typedef struct {
    uint64_t all, writing, missed;
} tm_cm_tally;

/* A mode's cost: TSC cycles per commit and per writing commit (0: unknown, or too few writing
 * commits to tell). Two costs compare by cycles per writing commit when both have it, else by
 * cycles per commit. Per writing commit first, because threads that poll in read-only
 * transactions until another writes (a barrier, a token, a condition variable turned busy
 * wait) commit more of them the faster they poll, and a mode that keeps the writer waiting
 * while the pollers spin fast then looked cheapest: serial mode, whose pollers run GCC's
 * uninstrumented code, passed a token between 2 threads at 0.3M hand-offs/s while it measured
 * cheaper per commit than gl_wt at 6M (bench micro --mode ring). Where the mix of read-only
 * and writing transactions is the program's own, both measures rank modes alike. */
typedef struct {
    uint64_t c, w;
} tm_cm_price;

#define TM_CM_MIN_WRITING 64u /* writing commits an epoch needs for its per-writing cost */

/* The figures a and b compare by (see tm_cm_price). */
static inline void tm_cm_keys(tm_cm_price a, tm_cm_price b, uint64_t *ka, uint64_t *kb)
{
    bool w = a.w && b.w;
    *ka = w ? a.w : a.c;
    *kb = w ? b.w : b.c;
}

/* The decision state. `mode`, `spec` and `spec_gen` are read by every attempt; the rest is
 * guarded by `busy`. */
static struct {
    _Atomic uint32_t mode;     /* read at every attempt: read-mostly line */
    _Atomic uint32_t spec;     /* a speculative mode; changed under the serial lock */
    _Atomic uint32_t spec_gen; /* bumped with every change of `spec` */
    _Alignas(64) _Atomic uint32_t busy;
    _Atomic uint64_t epoch_end;        /* read without `busy` by every window's end */
    uint64_t epoch_start;              /* TSC when the epoch began */
    tm_cm_tally at;                    /* process-wide commits then */
    _Atomic uint64_t est[TM_CM_N_MODES]; /* cycles per committed transaction (0 = unknown) */
    _Atomic uint64_t estw[TM_CM_N_MODES]; /* cycles per writing commit (0 = too few to tell) */
    uint32_t run, left, incumbent, next_probe;
    tm_cm_price base;                  /* incumbent's cost when it last won or took over */
    bool probing, warming, glance;
    uint64_t time[TM_CM_N_MODES];      /* TSC cycles decided in each mode */
    uint32_t noise[TM_CM_N_MODES];     /* mean deviation of its epochs, 1/1024ths of its cost */
    bool htm_hw;                       /* in the last htm epoch, at most 1/8 as many attempts took
                                        * the lock as there were commits */
    _Atomic uint64_t epochs[TM_CM_N_MODES]; /* epochs decided in each mode (the statistics) */
    _Atomic uint64_t probes[TM_CM_N_MODES]; /* probes of each mode (the statistics) */
    _Atomic uint64_t switches;            /* changes of mode (the statistics) */
} tm_cm;

const char *tm_cm_mode_name(unsigned mode) { return tm_cm_modes[mode].name; }

/* May adaptive use this mode now? (TMKIT_ADAPTIVE_MODES, and the orec modes' thread count) */
static bool tm_cm_usable(uint32_t m, uint32_t threads)
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

static inline uint64_t tm_cm_now(void) { return __builtin_ia32_rdtsc(); }

static void tm_cm_switch(tm_tx *tx, uint32_t mode)
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

/* The estimates are written by the decider (under `busy`) and read by it and by the report.
 * relaxed: each is a value on its own, and the report only wants a recent one. */
static uint64_t tm_cm_est(uint32_t m) { return atomic_load_explicit(&tm_cm.est[m], memory_order_relaxed); }
static uint64_t tm_cm_estw(uint32_t m)
{
    return atomic_load_explicit(&tm_cm.estw[m], memory_order_relaxed);
}
static tm_cm_price tm_cm_est_cost(uint32_t m) { return (tm_cm_price){tm_cm_est(m), tm_cm_estw(m)}; }
static void tm_cm_set_est(uint32_t m, tm_cm_price v)
{
    atomic_store_explicit(&tm_cm.est[m], v.c, memory_order_relaxed);
    atomic_store_explicit(&tm_cm.estw[m], v.w, memory_order_relaxed);
}

/* Transactions committed by the whole process so far. relaxed: a count a few commits stale
 * only moves them into the next epoch. The registry is push-only and counts only grow
 * (recycled descriptors keep theirs), so the sum never decreases. */
static tm_cm_tally tm_cm_commits(void)
{
    tm_cm_tally sum = {0, 0, 0};
    for (tm_tx *t = tm_registry_head(); t;
         t = atomic_load_explicit(&t->next, memory_order_acquire)) {
        sum.all += atomic_load_explicit(&t->cm.commits, memory_order_relaxed);
        sum.writing += atomic_load_explicit(&t->cm.wcommits, memory_order_relaxed);
        sum.missed += atomic_load_explicit(&t->cm.hwmissed, memory_order_relaxed);
    }
    return sum;
}

/* An epoch's cost x against the average ref: at most twice it. */
static inline uint64_t tm_cm_clamp(uint64_t x, uint64_t ref) { return x > 2 * ref ? 2 * ref : x; }

static inline uint64_t tm_cm_max(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* How a mode ranks where two cost the same: the serial mode lowest, then the software
 * speculative modes, then htm while its commits run in hardware (its last epoch's attempts that
 * took the lock at most 1/8 of its commits; above that it is a serial mode, its fallbacks hold
 * the lock). */
static inline int tm_cm_rank(uint32_t m)
{
    if (m == TM_CM_HTM)
        return tm_cm.htm_hw ? 2 : 0;
    return m == TM_CM_SERIAL ? 0 : 1;
}

/* Does the probed mode m, at cost kc, take over from the incumbent i, at cost ki? Only when it
 * is cheaper by more than the noise of one epoch: 1/8, or three times the incumbent's own mean
 * deviation from epoch to epoch if that is more. (Without a margin, two modes of similar cost
 * trade places every few epochs, and every change of speculative algorithm drains all threads.
 * A fixed 1/8 is about 3 deviations of a closed loop of transactions on this 2-vCPU VM, but a
 * server's epochs, whose cost per commit is mostly the time between requests, deviate by
 * 10-15% from each other: there every mode won a probe in turn by the noise.) And a mode of a
 * higher rank (tm_cm_rank) takes over from one of a lower rank unless it costs more than 1/16,
 * or that noise, above it. Ties go to the modes that never hold the serial lock, because where
 * the two cost the same the serial one stops every other transaction for nothing, and the more
 * threads, the more it would; and among those to hardware transactions, which run GCC's
 * uninstrumented code and so spend the least CPU on each, where the wall-clock cost a commit
 * cannot tell (a server's is mostly the time between requests). The band between the two keeps
 * whichever is in, so noise around a real difference does not flip them at every probe. Under
 * a get/set load memcached measured every mode within 2% of the others; with a symmetric 1/8
 * whichever mode won a probe by the noise kept the process for up to 256 epochs, and its hot
 * path ran 19-46% of its transactions under the serial lock; 12-13% with the tie rule alone,
 * 0.4-1.4% with both (bench/results/advise-memcached). */
static bool tm_cm_wins(uint32_t m, uint64_t kc, uint32_t i, uint64_t ki)
{
    uint64_t noise = ki * tm_cm.noise[i] / 1024 * 3;
    if (tm_cm_rank(m) > tm_cm_rank(i))
        return kc <= ki + tm_cm_max(ki / 16, noise);
    return kc + tm_cm_max(kc / 8, noise) < ki;
}

/* Called by one thread at a time (busy flag), when the epoch's time is up. */
static void tm_cm_decide(tm_tx *tx, uint64_t now)
{
    uint32_t mode = atomic_load_explicit(&tm_cm.mode, memory_order_relaxed);
    tm_cm_tally total = tm_cm_commits();
    if (tm_cm.epoch_start == 0 || total.all == tm_cm.at.all) {
        /* the first epoch starts now; an epoch without commits is extended */
        if (tm_cm.epoch_start == 0) {
            tm_cm.epoch_start = now;
            tm_cm.at = total;
        }
        atomic_store_explicit(&tm_cm.epoch_end, now + TM_CM_EPOCH, memory_order_relaxed);
        return;
    }
    uint64_t writing = total.writing - tm_cm.at.writing;
    tm_cm_price cost = {(now - tm_cm.epoch_start) / (total.all - tm_cm.at.all),
                       writing >= TM_CM_MIN_WRITING ? (now - tm_cm.epoch_start) / writing : 0};
    uint64_t kc, ki;
    if (tm_cm.probing && !tm_cm.warming && tm_cm.glance) {
        /* A quarter into the probe's measurement: a challenger already twice as dear as the
         * incumbent has lost (it goes on to the decision below with this cost); any other
         * is measured over the whole epoch, from where the measurement began. (The quarter
         * may have too few writing commits for their cost: then the two compare per commit.) */
        tm_cm.glance = false;
        tm_cm_keys(cost, tm_cm_est_cost(tm_cm.incumbent), &kc, &ki);
        if (!ki || kc <= 2 * ki) {
            atomic_store_explicit(&tm_cm.epoch_end, tm_cm.epoch_start + TM_CM_EPOCH,
                                  memory_order_relaxed);
            return;
        }
    }
    if (mode == TM_CM_HTM) /* its rank (tm_cm_rank) follows its latest measure */
        tm_cm.htm_hw = (total.missed - tm_cm.at.missed) * 8 <= total.all - tm_cm.at.all;
    uint64_t len = now - tm_cm.epoch_start;
    tm_cm.epoch_start = now;
    tm_cm.at = total;
    /* relaxed: only deciders (one at a time) write; the report reads a recent value. */
    /* Epochs in each mode, counted in whole epochs of time (a probe's parts are shorter). */
    tm_cm.time[mode] += len;
    atomic_store_explicit(&tm_cm.epochs[mode], tm_cm.time[mode] / TM_CM_EPOCH,
                          memory_order_relaxed);
    uint64_t next = TM_CM_EPOCH;
    if (tm_cm.probing && tm_cm.warming) {
        tm_cm.warming = false; /* the probe's warm-up: not measured (see above) */
        tm_cm.glance = true;
        next = TM_CM_EPOCH / 4;
    } else if (tm_cm.probing) {
        tm_cm.probing = false;
        tm_cm_set_est(mode, cost); /* a fresh measurement of the probed mode */
        uint32_t inc = tm_cm.incumbent;
        tm_cm_keys(cost, tm_cm_est_cost(inc), &kc, &ki);
        if (tm_cm_wins(mode, kc, inc, ki)) {
            tm_cm.incumbent = mode;
            tm_cm.run = 2;
            tm_cm.base = cost;
        } else {
            tm_cm_switch(tx, inc);
            /* run starts at 0: doubling that would leave `left` at 0, whose decrement below
             * wraps, and the incumbent would never be challenged again. */
            uint32_t run = tm_cm.run ? tm_cm.run * 2 : 2;
            tm_cm.run = run > TM_CM_RUN_MAX ? TM_CM_RUN_MAX : run;
            tm_cm.base = tm_cm_est_cost(inc);
        }
        tm_cm.left = tm_cm.run;
    } else {
        /* The moving average, with an epoch dearer than twice it counted as twice it (one
         * epoch in which the threads were preempted must not make every challenger look
         * cheap, nor restart the back-off below), and the epochs' deviation from it. */
        tm_cm_price old = tm_cm_est_cost(mode), avg = cost;
        if (old.c) {
            uint64_t c = tm_cm_clamp(cost.c, old.c), d = c > old.c ? c - old.c : old.c - c;
            tm_cm.noise[mode] = (3 * tm_cm.noise[mode] + (uint32_t)(d * 1024 / old.c)) / 4;
            avg.c = (old.c + c) / 2;
        }
        if (old.w && cost.w)
            avg.w = (old.w + tm_cm_clamp(cost.w, old.w)) / 2;
        tm_cm_set_est(mode, avg);
        /* The workload changed under the incumbent (see the top): challenge it again soon. */
        tm_cm_keys(avg, tm_cm.base, &kc, &ki);
        if (ki && kc > 2 * ki && tm_cm.left > 2) {
            tm_cm.run = 2;
            tm_cm.left = 2;
            tm_cm.base = avg;
        }
        /* The next mode worth probing now, in turn (the orec modes only with enough threads
         * to pay for them; the redo-log ones only if allowed). gl_wt and serial always are. */
        uint32_t threads = tm_bias_thread_count(), probe = tm_cm.next_probe % TM_CM_N_MODES;
        while (probe == mode || !tm_cm_usable(probe, threads))
            probe = (probe + 1) % TM_CM_N_MODES;
        if (tm_cm_est(probe) == 0 || --tm_cm.left == 0) {
            /* The rotation moves on only when a probe starts. (It used to move at every
             * epoch: with two challengers and an even back-off, the one whose turn fell on
             * the last epoch was always the same, and the other was never measured again.) */
            tm_cm.next_probe = probe + 1;
            tm_cm.incumbent = mode;
            const tm_dispatch *d = tm_hooks.adaptive_modes[probe];
            if (d && d->prepare)
                d->prepare(); /* before the drain: the others go on meanwhile */
            tm_cm_switch(tx, probe);
            tm_cm.probing = true;
            tm_cm.warming = true;
            next = TM_CM_WARM;
            atomic_store_explicit(&tm_cm.probes[probe],
                                  atomic_load_explicit(&tm_cm.probes[probe], memory_order_relaxed) + 1,
                                  memory_order_relaxed);
        }
    }
    atomic_store_explicit(&tm_cm.epoch_end, now + next, memory_order_relaxed);
}

/* Every TM_CM_WINDOW commits of a descriptor (tm_cm_count): has the epoch ended? */
void tm_cm_window(tm_tx *tx)
{
    if (!tm_config.algo->managed)
        return; /* serialirr's commit fast path counts too */
    uint64_t now = tm_cm_now();
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

/* The state of adaptive's contention management, shared by core/cm.c (the modes, the switch,
 * the epochs' clock, what the rest of the runtime asks) and core/cm_decide.c (the decision at
 * an epoch's end). cm.c's top comment says how adaptive works. */
#ifndef TM_CM_STATE_H
#define TM_CM_STATE_H

#include "config.h"
#include "hooks.h"
#include "serial_fast.h"

#define TM_CM_EPOCH 4000000ull /* TSC cycles: ~1.5 ms */
#define TM_CM_WARM (TM_CM_EPOCH / 4) /* a probe's unmeasured start */
#define TM_CM_RUN_MAX 256u
#define TM_CM_OREC_THREADS 2u

/* The serial lock's settings (cm_decide.c: tm_cm_lock_trial): turns with the bias grants
 * (core/bias.c), turns without them, the plain lock (core/serial_handoff.c), which has none. */
enum { TM_CM_LOCK_GRANTS = 0, TM_CM_LOCK_TURNS, TM_CM_LOCK_PLAIN, TM_CM_LOCK_N };

/* The modes (tx_modules.h: TM_CM_GLWT...): their names in the statistics, whether they buffer
 * writes (redo log: only with TMKIT_ADAPTIVE_MODES=all) and whether they are worth probing only
 * with TM_CM_OREC_THREADS or more transacting threads. The speculative algorithm each one runs
 * is algo/'s to say (hooks.h: adaptive_modes, filled in by algo/algo_hooks.c; NULL: serial). */
struct tm_cm_mode {
    const char *name;
    bool redo, many;
};
extern const struct tm_cm_mode tm_cm_modes[TM_CM_N_MODES] TM_HIDDEN;

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
struct tm_cm_state {
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
    /* The serial lock's setting (cm_decide.c: tm_cm_lock_trial): the one kept, whether an
     * epoch measuring another (the challenger, in force meanwhile) is running, the next
     * challenger, and the serial epochs until the next such trial and their back-off, as run
     * and left for probes. */
    uint32_t lock_setting, lock_challenger, lock_next;
    bool lock_trial;
    uint32_t probe_setting, serial_probes; /* the setting a serial probe runs with, and the
                                            * serial probes so far (tm_cm_probe_lock) */
    uint32_t grant_run, grant_left;
    _Atomic uint64_t grant_trials;      /* trials that turned the bias grants on or off (the
                                         * statistics) */
    _Atomic uint64_t plain_trials;      /* trials that turned the plain lock on or off (the same) */
    _Atomic uint64_t grants_off_epochs; /* serial epochs that ended with no grants (the same) */
    _Atomic uint64_t plain_epochs;      /* serial epochs that ended with the plain lock (the same) */
};
extern struct tm_cm_state tm_cm TM_HIDDEN;

static inline uint64_t tm_cm_now(void) { return __builtin_ia32_rdtsc(); }

/* The estimates are written by the decider (under `busy`) and read by it and by the report.
 * relaxed: each is a value on its own, and the report only wants a recent one. */
static inline uint64_t tm_cm_est(uint32_t m) { return atomic_load_explicit(&tm_cm.est[m], memory_order_relaxed); }
static inline uint64_t tm_cm_estw(uint32_t m)
{
    return atomic_load_explicit(&tm_cm.estw[m], memory_order_relaxed);
}
static inline tm_cm_price tm_cm_est_cost(uint32_t m) { return (tm_cm_price){tm_cm_est(m), tm_cm_estw(m)}; }
static inline void tm_cm_set_est(uint32_t m, tm_cm_price v)
{
    atomic_store_explicit(&tm_cm.est[m], v.c, memory_order_relaxed);
    atomic_store_explicit(&tm_cm.estw[m], v.w, memory_order_relaxed);
}

/* cm.c */
TM_HIDDEN bool tm_cm_usable(uint32_t m, uint32_t threads);
TM_HIDDEN void tm_cm_switch(tm_tx *tx, uint32_t mode);
/* cm_decide.c: called by one thread at a time (the `busy` flag), when the epoch's time is up */
TM_HIDDEN void tm_cm_decide(tm_tx *tx, uint64_t now);

#endif

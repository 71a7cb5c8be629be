/* Per-site transaction statistics (TMKIT_STATS).
 *
 * A site is the return address of _ITM_beginTransaction: the transaction statement. Each thread
 * counts into its own table (no shared cache line is written on the hot path); tables are merged
 * when the report is written. Every counter is declared once, here, with its meaning; the JSON
 * and the table are produced from this list (docs/stats.md documents the format).
 * With statistics off, the hooks cost one predictable branch on a read-mostly flag.
 * Core counts through the hooks stats_hooks.c fills in (core/hooks.h), abi/checkpoint.S through
 * stats_begin.c and its own inline batch; ext/ calls the functions below directly.
 */
#ifndef TMKIT_STATS_H
#define TMKIT_STATS_H

#include "../core/hooks.h"
#include "../core/tx.h"

#define TM_STATS_COUNTERS(X)                                                                  \
    X(starts, "attempts started (the first and every restart)")                               \
    X(commits, "transactions committed")                                                      \
    X(abort_read_conflict, "attempts aborted: a location read was changed by a writer")       \
    X(abort_write_conflict, "attempts aborted: could not acquire a location to write")        \
    X(abort_validation, "attempts aborted: commit-time or upgrade validation failed")         \
    X(abort_cancel, "attempts ended by __transaction_cancel")                                 \
    X(abort_retry, "attempts rolled back to wait (tm_retry, tm_cond_wait) or by "               \
                   "_ITM_abortTransaction(retry/conflict)")                                   \
    X(abort_serial, "attempts restarted to run serially (contention fallback, upgrade race)") \
    X(serial_attempts, "attempts that ran serially from their start")                         \
    X(irrevocable_switches, "switches to serial-irrevocable in the middle of an attempt")     \
    X(uninstrumented_attempts, "attempts that ran GCC's uninstrumented code, alone (bias or "  \
                               "serial lock): unsafe calls in them needed no switch")         \
    X(gcc_irrevocable_starts, "attempts of a transaction GCC compiled to start irrevocable "  \
                              "(an unsafe call on every path)")                               \
    X(read_set_sum, "entries in the read set, summed over committed transactions")            \
    X(write_set_sum, "entries in the write set or undo log, summed over committed ones")      \
    X(read_set_max, "largest read set of a committed transaction")                            \
    X(write_set_max, "largest write set of a committed transaction")                          \
    X(cycles_committed, "TSC cycles inside committed attempts (sampled, scaled)")             \
    X(cycles_aborted, "TSC cycles inside aborted attempts, wasted work (sampled, scaled)")     \
    X(cycles_serial_wait, "TSC cycles waiting for the serial lock (to run serially, or for "   \
                          "an irrevocable transaction to finish before starting)")            \
    X(cycles_quiesce_wait, "TSC cycles a committed writer waited for concurrent transactions " \
                           "(privatization safety)")                                          \
    X(retry_sleeps, "waits that waited: polled, then slept (tm_retry, tm_cond_wait; not "    \
                    "those whose reads had changed already)")                                 \
    X(retry_wakeups, "sleeps ended by a commit or a signal (not by the deadline)")            \
    X(retry_spurious, "waits right after a wake-up: the wake-up did not give the transaction " \
                      "what it waited for")                                                   \
    X(cycles_asleep, "TSC cycles in waits, polls included (every wait, not sampled)")        \
    X(group_enters, "tm_group_enter calls: lock groups taken in shared mode before a "       \
                    "transaction (the site is the call)")                                    \
    X(group_locks, "tm_group_lock calls: lock groups taken exclusively by a non-revocable "   \
                   "section (the site is the call)")                                         \
    X(cycles_group_wait, "TSC cycles these calls waited for their groups")                    \
    X(cycles_group_held, "TSC cycles the groups of tm_group_lock calls were held exclusively") \
    X(htm_commits, "attempts that ran and committed as hardware transactions (the htm mode; "   \
                   "they start on the serial path, so serial_attempts counts them too)")     \
    X(htm_abort_conflict, "hardware-transaction tries aborted by another thread's access to " \
                          "their data (htm mode; the attempt tries again or takes the lock)")  \
    X(htm_abort_capacity, "hardware-transaction tries aborted because their data did not fit " \
                          "the processor's buffers")                                          \
    X(htm_abort_lock, "hardware-transaction tries aborted because the serial lock was held "  \
                      "(or the serial mode ended)")                                           \
    X(htm_abort_other, "hardware-transaction tries aborted for another reason: a system call, " \
                       "fault or interrupt, or a wait or cancel that needs the software path")  \
    X(htm_cancels, "hardware-transaction tries that the program cancelled: the hardware "      \
                   "rolled them back (abort_cancel counts them too)")

enum tm_stat {
#define TM_STAT_ENUM(name, doc) TM_STAT_##name,
    TM_STATS_COUNTERS(TM_STAT_ENUM)
#undef TM_STAT_ENUM
        TM_STAT_N
};

#define TM_RETRY_BUCKETS 8 /* commits after 0, 1, 2-3, 4-7, 8-15, 16-31, 32-63, 64+ aborts */

/* A site's counters. pc is the key inside one process; (obj, off) is the key across processes
 * (shared-memory mode only: obj indexes the segment's object table, off is pc minus the load
 * address of that object), filled before pc is published. */
typedef struct tm_site {
    uintptr_t pc;       /* 0: free slot */
    uintptr_t irrev_pc; /* the last call that made this site go irrevocable */
    uint32_t obj, irrev_obj;
    uint64_t off, irrev_off;
    uint64_t c[TM_STAT_N];
    uint64_t retries[TM_RETRY_BUCKETS];
    /* Attempts counted whole when they started (biased, uninstrumented: they cannot abort),
     * with one increment instead of four. Not a reported counter: tm_site_add adds it to
     * starts, commits, uninstrumented_attempts and retries[0]. */
    uint64_t fast;
    /* The same for attempts of adaptive's serial mode that run uninstrumented under the serial
     * lock (also cannot abort): tm_site_add adds it to those four and to serial_attempts. */
    uint64_t fast_serial;
    /* Time sampling of this site by its thread (see TM_STATS_TIME_BUDGET); not reported. */
    int32_t t_left;    /* attempts until the next timed one */
    uint32_t t_stride; /* attempts the current sample stands for (its weight) */
    uint64_t t_avg;    /* moving average of the timed attempts' cycles */
    /* GCC compiled this site to start irrevocable (tm_prop_gcc_irrevocable): set by the site's
     * first attempt in this table (tm_stats_attempt_slow, where every new site's first attempt
     * goes), never on the "other sites" pseudo-site, whose attempts are of many sites. Every
     * attempt of such a site starts irrevocable, so its gcc_irrevocable_starts are its starts:
     * tm_site_add reports them so, and nothing is counted on the paths that count attempts
     * (checkpoint.S's batches included). A site that tm_site_add fills (a merged one, the
     * shared segment's archive) holds the count itself and leaves this 0. */
    uint32_t gcc_irrevocable;
} tm_site;

/* abi/checkpoint.S counts whole attempts outside the batch into the site (core/tx_layout.h). */
_Static_assert(offsetof(tm_site, fast) == TM_SITE_FAST, "tx_layout.h: offset of fast");
_Static_assert(offsetof(tm_site, fast_serial) == TM_SITE_FAST_SERIAL, "tx_layout.h: fast_serial");
_Static_assert(offsetof(tm_site, t_left) == TM_SITE_T_LEFT, "tx_layout.h: offset of t_left");
_Static_assert(sizeof(((tm_site *)0)->t_left) == 4 && sizeof(((tm_site *)0)->fast) == 8,
               "checkpoint.S operand sizes");

#define TM_SITES 256 /* per table; sites beyond are counted under pc 1 ("other sites") */
#define TM_STATS_NO_OBJ 0xffffffffu

/* One thread's counters: malloc'd, or a block of the shared-memory segment (stats_shm.c). */
typedef struct tm_site_table {
    tm_site site[TM_SITES];
    tm_site other;
    struct tm_site_table *next; /* process-local list of the tables to merge at exit */
    bool shared;                /* lives in the shared-memory segment */
} tm_site_table;

/* tm_stats_on, the flag every counting path tests, is core's (core/hooks.h): core tests it
 * before each statistics hook, abi/checkpoint.S before it counts. */

/* Adds site s's counts into d (maxima take the larger; the serializing call is s's if it has
 * one). s may be counted into concurrently by its thread, or by another process: relaxed loads
 * (each value exact at some moment). Used by the at-exit merge, the shared segment's archive
 * and tmkit-shmdump alike. */
static inline void tm_site_add(tm_site *d, const tm_site *s)
{
    uint64_t starts = 0;
    for (int k = 0; k < TM_STAT_N; k++) {
        uint64_t v = __atomic_load_n(&s->c[k], __ATOMIC_RELAXED);
        bool is_max = k == TM_STAT_read_set_max || k == TM_STAT_write_set_max;
        d->c[k] = is_max ? (d->c[k] > v ? d->c[k] : v) : d->c[k] + v;
        if (k == TM_STAT_starts)
            starts = v;
    }
    for (int k = 0; k < TM_RETRY_BUCKETS; k++)
        d->retries[k] += __atomic_load_n(&s->retries[k], __ATOMIC_RELAXED);
    uint64_t f = __atomic_load_n(&s->fast, __ATOMIC_RELAXED);
    uint64_t fs = __atomic_load_n(&s->fast_serial, __ATOMIC_RELAXED);
    /* Relaxed: the flag is written once, by the site's first attempt before it counts itself; a
     * reader of the shared segment that misses it counts none of the site's starts as GCC's in
     * that reading, and the next reading all of them. */
    if (__atomic_load_n(&s->gcc_irrevocable, __ATOMIC_RELAXED))
        d->c[TM_STAT_gcc_irrevocable_starts] += starts + f + fs;
    d->c[TM_STAT_starts] += f + fs;
    d->c[TM_STAT_commits] += f + fs;
    d->c[TM_STAT_uninstrumented_attempts] += f + fs;
    d->c[TM_STAT_serial_attempts] += fs;
    d->retries[0] += f + fs;
    if (__atomic_load_n(&s->irrev_pc, __ATOMIC_RELAXED)) {
        d->irrev_pc = s->irrev_pc;
        d->irrev_obj = s->irrev_obj;
        d->irrev_off = s->irrev_off;
    }
}

/* GCC compiled the transaction to start irrevocable: it has no instrumented code, or says it
 * always goes irrevocable (an unsafe call on every path). core/begin.c runs such an attempt
 * serially (or alone, under the bias) from its start; nothing calls _ITM_changeTransactionMode,
 * so irrev_pc stays empty and `tmkit report` finds the call in the binary instead. */
static inline bool tm_prop_gcc_irrevocable(uint32_t prop)
{
    return (prop & pr_doesGoIrrevocable) || !(prop & pr_instrumentedCode);
}

/* The counter of a hardware-transaction try that ended with status (_xbegin's abort status, or
 * TM_HTM_COMMITTED; core/htm.c). The bits are RTM's (Intel SDM vol. 1, 16.3.5): 1 explicit
 * abort (code in bits 31-24), 2 may succeed on a retry, 4 conflict, 8 capacity. */
static inline enum tm_stat tm_stats_htm_counter(unsigned status)
{
    if (status == TM_HTM_COMMITTED)
        return TM_STAT_htm_commits;
    if (status & 4u)
        return TM_STAT_htm_abort_conflict;
    if (status & 8u)
        return TM_STAT_htm_abort_capacity;
    if ((status & 1u) && (status >> 24) == TM_HTM_LOCKED)
        return TM_STAT_htm_abort_lock;
    if ((status & 1u) && (status >> 24) == TM_HTM_CANCEL)
        return TM_STAT_htm_cancels;
    return TM_STAT_htm_abort_other;
}

TM_HIDDEN void tm_stats_attempt_slow(tm_tx *tx, bool serial, bool counted);
TM_HIDDEN void tm_stats_htm(tm_tx *tx, unsigned status);
TM_HIDDEN void tm_stats_commit_slow(tm_tx *tx);
TM_HIDDEN void tm_stats_abort(tm_tx *tx, tm_abort_reason why);
TM_HIDDEN void tm_stats_irrevocable(tm_tx *tx, uintptr_t caller_pc);
TM_HIDDEN void tm_stats_nested_cancel(tm_tx *tx);
TM_HIDDEN void tm_stats_configure(const char *dest);
TM_HIDDEN void tm_stats_wait(tm_tx *tx, enum tm_stat which, uint64_t cycles);
TM_HIDDEN void tm_stats_fork_child(void);
TM_HIDDEN void tm_stats_group(tm_tx *tx, uintptr_t pc, bool exclusive, uint64_t wait_cycles);
TM_HIDDEN void tm_stats_group_held(tm_tx *tx, uintptr_t pc, uint64_t cycles);

/* Shared-memory mode (TMKIT_STATS_SHM, stats_shm.c). */
TM_HIDDEN void tm_stats_shm_configure(const char *name);
TM_HIDDEN tm_site_table *tm_stats_shm_table(void);  /* NULL when none is free */
TM_HIDDEN uint32_t tm_stats_shm_object(const char *path, uintptr_t pc);
/* The GNU build id of the loaded object containing pc, in hex ("" if it has none): the report
 * tells a profile's binary from a rebuilt one by it (stats_report.c). */
#define TM_STATS_BUILD_ID_HEX 65 /* up to 32 bytes, as hex, and the terminating 0 */
TM_HIDDEN void tm_stats_build_id(uintptr_t pc, char out[TM_STATS_BUILD_ID_HEX]);
TM_HIDDEN void tm_stats_shm_exit(void);
TM_HIDDEN void tm_stats_shm_fork_child(void);
extern bool tm_stats_shm_on TM_HIDDEN;

static inline uint64_t tm_stats_now(void) { return tm_tsc(); }
extern uint64_t tm_stats_tsc_cost TM_HIDDEN;   /* cycles a pair of reads adds to an interval */
extern uint64_t tm_stats_tsc_budget TM_HIDDEN; /* TM_STATS_TIME_BUDGET x what a pair costs */

/* Time is sampled per site: reading the TSC costs ~20 ns in some virtual machines, more than a
 * whole small transaction. Each site draws its next timed attempt at random 1 to 2B-1 of its
 * attempts later, B = TM_STATS_TIME_BUDGET x (the calibrated cost of a pair of TSC reads: their
 * throughput, at least 40 cycles; tm_stats_tsc_budget) /
 * (moving average of its timed attempts' cycles), clamped to [1, TM_STATS_STRIDE_MAX]. A
 * timed attempt costs two TSC reads and ~250 instructions of out-of-line paths (callgrind),
 * cold code that runs once a stride; the budget keeps timing near 1% of a site's time: a site
 * of ~16 ns transactions is timed about 1 in 1024 (with the cap at 256, timing alone cost such
 * a site 3-4%), one of transactions over ~40 us every time, and long sites are measured
 * closely however rare. (With a budget of 400, the shared counter at 2 threads, ~85 ns
 * transactions under the serial lock timed 1 in ~90, ran 3.7% slower than with 1600: median
 * of 31 paired runs, 2026-11-23.)
 * (Under valgrind everything runs ~50x slower and far more attempts are timed; there
 * TMKIT_STATS_STRIDE fixes B.) A timed attempt counts for the attempts of its stride (its
 * weight), which keeps the sums unbiased; the random stride keeps periodic behaviour from
 * aliasing with the sample. */
#define TM_STATS_TIME_BUDGET 1600u
#define TM_STATS_PAIR_MIN 40u /* floor of the calibrated cost of a pair of TSC reads */
#define TM_STATS_STRIDE_MAX 1024u

/* The hooks' common cases are inline (stats on must stay within ~10% of off even for tiny
 * transactions): a site in the per-thread cache, not timed, nothing else to record. The
 * cache is keyed by its own pc array, so a miss needs no load through a site pointer. */
#define TM_STATS_WAYS_OFF 8 /* way 1 of set k is entry k + 8 */
/* Fibonacci hashing: the top 3 bits of pc x 2^64/phi, so that call sites whose addresses share
 * low bits (they often do, in one function) still spread over the sets. */
static inline unsigned tm_stats_slot(uintptr_t pc)
{
    return (unsigned)(((uint64_t)pc * 0x9E3779B97F4A7C15ull) >> 61);
}

/* The cache entry holding pc's site (way 0 or way 1 of its set), or -1. */
static inline int tm_stats_cache_find(const tm_tx *tx, uintptr_t pc)
{
    unsigned k = tm_stats_slot(pc);
    if (TM_LIKELY(tx->stats_cache_pc[k] == pc))
        return (int)k;
    if (tx->stats_cache_pc[k + TM_STATS_WAYS_OFF] == pc)
        return (int)(k + TM_STATS_WAYS_OFF);
    return -1;
}

/* --*left > 0, as one memory decrement and a branch on its flags (GCC otherwise loads,
 * subtracts, stores and tests: three more instructions on every counted attempt). */
static inline __attribute__((always_inline)) bool tm_stats_countdown(int32_t *left)
{
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
    bool positive;
    __asm__("subl $1, %0" : "+m"(*left), "=@ccg"(positive));
    return positive;
#else
    return --*left > 0;
#endif
}

/* True, with *s the site of pc, if it is cached and the attempt need not be timed. A cached
 * site's countdown is decremented here, once per attempt; on a miss the slow path does it.
 * The last site used (stats_l0) is tried first, without hashing.
 * Two ways per set: three or four sites that alternate rarely all fall in one set (with four
 * one-way sets, two of three sites collided more often than not, and each collision sent
 * every attempt of both to the slow path). */
static inline bool tm_stats_fast_site(tm_tx *tx, uintptr_t pc, tm_site **s, bool *counted)
{
    if (TM_LIKELY(tx->stats_l0_pc == pc)) {
        *s = tx->stats_l0;
    } else {
        int i = tm_stats_cache_find(tx, pc);
        if (i < 0)
            return *counted = false;
        *s = tx->stats_cache[i];
        tx->stats_l0_pc = pc;
        tx->stats_l0 = *s;
    }
    *counted = true;
    return TM_LIKELY(tm_stats_countdown(&(*s)->t_left));
}

#include "stats_batch.h"

static inline void tm_stats_attempt(tm_tx *tx, bool serial)
{
    tm_stats_whole_end(tx, (uintptr_t)tx->jb0.pc);
    /* stats_t0 is already 0 here: only a timed attempt sets it, and its commit or abort (slow
     * paths) clears it. */
    tm_site *s;
    bool counted;
    if (TM_LIKELY(tm_stats_fast_site(tx, (uintptr_t)tx->jb0.pc, &s, &counted))) {
        tx->stats_site = s;
        s->c[TM_STAT_starts]++;
        if (serial)
            s->c[TM_STAT_serial_attempts]++;
        return;
    }
    tm_stats_attempt_slow(tx, serial, counted);
}

/* An attempt of uninstrumented code that cannot abort, counted whole now with one increment
 * (when checkpoint.S's batch did not take it; stats_begin.c, and core/begin.c through the hook
 * stats_attempt_whole): a biased one (tm_begin_outer: `fast`) or one of adaptive's serial mode
 * under the serial lock (tm_begin_outer_serial: `fast_serial`; the increment is made when the
 * commit returns: core's tm_commit_count_pending, so that a process killed inside the attempt
 * does not count it). It leaves stats_site NULL, so the
 * commit fast paths (abi/entry.c) have nothing to count and stay open: through tm_commit, stats
 * on added ~90 instructions to each serial-mode transaction (callgrind, shared counter at 2
 * threads, 2026-11-23). A timed attempt, or one whose site is not cached, takes the ordinary
 * path: stats_site set, counted at commit. */
static inline void tm_stats_attempt_whole(tm_tx *tx, bool serial)
{
    uintptr_t pc = (uintptr_t)tx->jb0.pc;
    if (tx->stats_w_pc == (serial ? pc | TM_STATS_W_SERIAL : pc) && tx->stats_w_left > 1) {
        /* the batch's site and kind (a serial start that waited for the lock, say): counted in
         * the batch, as checkpoint.S would have, instead of folding it to start it again */
        tx->stats_w_left--;
        return;
    }
    tm_stats_whole_end(tx, pc);
    tm_site *s;
    bool counted;
    if (TM_LIKELY(tm_stats_fast_site(tx, (uintptr_t)tx->jb0.pc, &s, &counted))) {
        tx->stats_pending = serial ? &s->fast_serial : &s->fast; /* counted by the commit */
        return;
    }
    tm_stats_attempt_slow(tx, serial, counted);
    tx->stats_site->c[TM_STAT_uninstrumented_attempts]++;
}

static inline void tm_stats_commit(tm_tx *tx)
{
    tm_site *s = tx->stats_site;
    uint64_t reads = tx->rset.n + tm_olog_n(&tx->olog), writes = tx->wset.n + tx->undo.count;
    if (TM_LIKELY(s && !tx->stats_t0 && tx->retries == 0 && reads <= s->c[TM_STAT_read_set_max] &&
                  writes <= s->c[TM_STAT_write_set_max])) {
        s->c[TM_STAT_commits]++;
        s->c[TM_STAT_read_set_sum] += reads;
        s->c[TM_STAT_write_set_sum] += writes;
        s->retries[0]++;
        tx->stats_site = NULL;
        return;
    }
    tm_stats_commit_slow(tx);
}

#endif

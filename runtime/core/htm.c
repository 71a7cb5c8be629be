/* Hardware transactions for the serial modes: elision of the serial lock with Intel RTM.
 *
 * Follows lock elision as Rajwar and Goodman proposed it ("Speculative Lock Elision", MICRO
 * 2001) and as GCC's libitm uses RTM for the same ABI (its htm fast path): in adaptive's HTM
 * mode (a serial mode: readers excluded, cm.c), which adaptive measures against the others
 * like any mode and keeps where it wins, a transaction that could take the serial lock
 * and run GCC's uninstrumented code runs that code inside a hardware transaction instead,
 * having read the serial word (free) and the exclusion flag (set): the hardware aborts it the
 * moment a thread takes the lock or adaptive leaves the serial mode (both write those words),
 * and on any conflict with another thread's access, transactional or not. So transactions
 * that touch different data run at the same time, as uninstrumented code, where the lock ran
 * them one after the other. After TM_HTM_TRIES aborts that the hardware says may succeed on a
 * retry (or at once, for any other abort: capacity, a system call, an explicit abort) the
 * attempt takes the serial lock as before.
 * An attempt on the hardware path is TM_F_HTM | TM_F_IRREVOCABLE in direct mode, like a serial
 * one without the lock: the code cannot roll back in software, so whatever would need a
 * software rollback or the lock (a wait, a restart, a nested cancel) aborts the hardware
 * transaction (tm_htm_abort), and the retry takes the serial lock (explicit abort: no second
 * try). Transactions that may cancel come here too (core/begin.c: tm_attempt_start), where
 * GCC proved they make no irrevocable call: the outermost one's cancel is an abort with its own
 * code (tm_htm_cancel), after which the hardware has undone everything the cancel must undo,
 * and the begin returns as a cancel's would (txn.c: tm_cancel_htm_done). GCC's libitm sends
 * them to the lock; STAMP's vacation, whose transactions may cancel, ran at 2 threads in 1.6 s
 * on the lock here and 0.5-0.6 s in hardware (most runs; see docs/algorithms.md, "htm").
 * Software speculative transactions never run meanwhile (readers are excluded), and tmkit.h's
 * atomics outside transactions store plainly to memory, which aborts a hardware transaction
 * that read the word. Commit: the counters' additions inside the hardware transaction (as a
 * serial commit applies them under the lock), XEND, then what a serial commit does after its
 * unlock (abi/entry.c).
 * TMKIT_HTM=off takes the mode out of adaptive's set; so does a CPU without RTM (cpuid). The
 * algorithm `htm` (algo/serial.c, its flag `htm`) is serialirr with this path always on;
 * serialirr never uses it. The counters' additions and the wake-up of tm_retry waiters are
 * ext/'s, called through hooks (hooks.h).
 * Statistics: every try that aborts is counted by its cause, and every attempt that commits in
 * hardware as such (hooks.h: stats_htm; the counters htm_* of stats/stats.h), after the abort or
 * the commit, outside the hardware transaction. The attempt itself was counted when it started,
 * as a serial one (abi/checkpoint.S counts before it comes here).
 * TMKIT_HTM=simulate runs this path on any CPU for the tests (tests/unit/test_htm_stats.sh):
 * no RTM instruction is executed, each try "aborts" with the status tm_htm_simulated gives (a
 * conflict that may succeed on a retry, then a capacity abort), so every attempt counts its two
 * aborts, backs off and takes the lock as after real ones. */
#include <immintrin.h>

#include "config.h"
#include "hooks.h"
#include "serial_fast.h"

#define TM_HTM_TRIES 2
/* The explicit abort codes TM_HTM_LOCKED and TM_HTM_SOFTWARE: tx_modules.h (the statistics
 * tell them apart). */

_Atomic bool tm_htm_on; /* read by checkpoint.S's serial path; set by adaptive (cm.c) */
bool tm_htm_available;

/* Some CPUs enumerate RTM but abort every transaction (microcode that forces aborts, the
 * RTM_ALWAYS_ABORT bit): the mode would only cost there. One success in 64 tries will do. */
__attribute__((target("rtm"))) static bool tm_htm_works(void)
{
    for (int i = 0; i < 64; i++)
        if (_xbegin() == _XBEGIN_STARTED) {
            _xend();
            return true;
        }
    return false;
}

/* TMKIT_HTM=simulate: the status of try number `tries` of an attempt. */
static unsigned tm_htm_simulated(unsigned tries)
{
    return tries == 0 ? _XABORT_CONFLICT | _XABORT_RETRY : _XABORT_CAPACITY;
}

__attribute__((constructor(TM_INIT_HTM))) static void tm_htm_init(void)
{
    __builtin_cpu_init();
    tm_htm_available = tm_config.htm == TM_HTM_SIMULATE ||
                       (tm_config.htm == TM_HTM_AUTO && __builtin_cpu_supports("rtm") &&
                        tm_htm_works());
    /* relaxed: before any thread but this one exists. */
    if (tm_config.algo->htm && tm_htm_available)
        atomic_store_explicit(&tm_htm_on, true, memory_order_relaxed);
}

TM_HIDDEN uint32_t tm_begin_serial_c(uint32_t prop, tm_tx *tx);

/* Code that runs inside hardware transactions and nowhere else (the rest of a hardware
 * attempt's path, checkpoint.S, _ITM_commitTransaction and the program's uninstrumented code,
 * also runs on the lock's path) is kept in a section of its own, tm_htm_text, so that it can be
 * touched from outside one. A hardware transaction aborts, with no cause bit, where the CPU must
 * walk the page tables and the entry for a page is not present or has its accessed bit clear:
 * the walk would have to write it. Something outside the program clears accessed bits (the
 * kernel's page aging, DAMON: kdamond samples pages every 500 ms on the machine these numbers
 * come from); a data page heals at the first access from outside a transaction, and the
 * fallback on the lock makes one, but a code page that only hardware transactions run never
 * heals: memcached's server processes, once the page holding tm_htm_commit had been aged, aborted
 * every hardware try for the rest of their life (0 commits in hardware in 200,000-400,000 tries a
 * second, until exit), and whether a process met it depended on when its page was sampled. A
 * program that ran 64 MiB of transactions over pages it never touched outside them lost 1% of
 * its tries at first and 45% some 25 s later; reading each page after an abort kept it at 1%.
 * The linker defines the bounds of a section whose name is an identifier. */
#define TM_HTM_TEXT __attribute__((section("tm_htm_text")))
extern const char __start_tm_htm_text[] TM_HIDDEN, __stop_tm_htm_text[] TM_HIDDEN;

/* After a try aborted with no cause: read a byte of every page of tm_htm_text, outside any
 * transaction, which sets the pages' accessed bits (and maps them if they are not). 4 KiB is the
 * smallest page; a bigger one is read more than once. volatile: the reads must happen. */
static void tm_htm_touch(void)
{
    uintptr_t end = (uintptr_t)__stop_tm_htm_text;
    for (uintptr_t p = (uintptr_t)__start_tm_htm_text & ~(uintptr_t)4095; p < end; p += 4096)
        (void)*(const volatile char *)p;
}

/* A status with none of the cause bits: an interrupt, a fault, an instruction a hardware
 * transaction cannot run, or a page walk that had to write (tm_htm_touch). */
static inline bool tm_htm_no_cause(unsigned st)
{
    return !(st & (_XABORT_EXPLICIT | _XABORT_RETRY | _XABORT_CONFLICT | _XABORT_CAPACITY |
                   _XABORT_DEBUG | _XABORT_NESTED));
}

/* One more attempt that took the lock in the htm mode, for adaptive's rank of the mode
 * (cm_decide.c: tm_cm_rank). Counted here, on the lock's path, rather than at each commit in
 * hardware: that store cost micro's 16-write transactions 8% at 2 threads. relaxed: as
 * cm.commits (serial_fast.h: tm_cm_count). */
static inline void tm_htm_missed(tm_tx *tx)
{
    tm_count_add1(&tx->cm.hwmissed);
}

/* The running outermost attempt's entry in the thread's table of sites (direct-mapped by its
 * return address, which checkpoint.S saved; a site that maps onto another's entry starts it
 * afresh). */
static inline struct tm_htm_site *tm_htm_site(tm_tx *tx)
{
    uintptr_t pc = tx->jb0.pc;
    struct tm_htm_site *s = &tx->htm_sites[((pc >> 4) ^ (pc >> 11)) & (TM_HTM_SITES - 1)];
    if (TM_UNLIKELY(s->pc != pc)) {
        tx->htm_backoffs -= s->skip_next != 0;
        s->pc = pc;
        s->skip = s->skip_next = 0;
        s->streak = 0;
    }
    return s;
}

/* Inside a hardware transaction just started: the serial word (free), the exclusion flag (set)
 * and the bias owner (none) join its read set, and the attempt goes on in direct mode. */
static inline __attribute__((always_inline, target("rtm"))) uint32_t tm_htm_enter(tm_tx *tx)
{
    /* relaxed: inside the hardware transaction these loads join its read set; a later write of
     * any of them aborts it. The bias owner too: an attempt that read tm_htm_on before adaptive
     * left the htm mode may get here after a serial holder has been granted the bias (bias.c
     * grants it only while the mode is off), and the owner's transactions take no lock, so the
     * serial word does not keep them apart (conf.mt_adaptive_phases lost an increment in 4 of
     * 140 runs on an RTM host, 0 of 180 with this check). */
    if (atomic_load_explicit(&tm_serial_word, memory_order_relaxed) != 0 ||
        !atomic_load_explicit(&tm_serial_excl, memory_order_relaxed) ||
        atomic_load_explicit(&tm_bias_owner, memory_order_relaxed) != 0)
        _xabort(TM_HTM_LOCKED);
    tx->flags = TM_F_HTM | TM_F_IRREVOCABLE;
    return a_runUninstrumentedCode | a_saveLiveVariables;
}

static uint32_t tm_begin_htm_rest(uint32_t prop, tm_tx *tx, bool tried, unsigned st0,
                                  uint32_t unlocks0);

/* checkpoint.S's serial path (TM_LOCK_SERIAL) when tm_htm_on: the descriptor is initialized
 * as for a serial attempt (TM_OUTER_INIT: flags TM_F_SERIAL | TM_F_IRREVOCABLE) and the
 * attempt already counted, if statistics are on. Returns with a hardware transaction open, or
 * as tm_begin_serial_c does, holding the lock. The common case, no site of the thread backing
 * off and the first try starting, is this function alone, which saves no register: with the
 * rest inline it pushed six and popped them inside the transaction, some 16 of its 34
 * instructions. */
TM_HTM_TEXT __attribute__((target("rtm"))) uint32_t tm_begin_htm(uint32_t prop, tm_tx *tx)
{
    if (TM_LIKELY(!tx->htm_backoffs) && TM_LIKELY(tm_config.htm != TM_HTM_SIMULATE)) {
        /* relaxed: as in tm_begin_htm_rest */
        uint32_t unlocks = atomic_load_explicit(&tm_serial_line.unlocks, memory_order_relaxed);
        unsigned st = _xbegin();
        if (st == _XBEGIN_STARTED)
            return tm_htm_enter(tx);
        return tm_begin_htm_rest(prop, tx, true, st, unlocks);
    }
    return tm_begin_htm_rest(prop, tx, false, 0, 0);
}

/* The rest of an attempt: its site's back-off, then tries (the first one already made if
 * `tried`, with status st0 and the unlock count unlocks0 it began with), waits and the
 * fallback. */
TM_HTM_TEXT __attribute__((noinline, target("rtm"))) static uint32_t
tm_begin_htm_rest(uint32_t prop, tm_tx *tx, bool tried, unsigned st0, uint32_t unlocks0)
{
    /* The site's entry only while some site of the thread backs off (tx->htm_backoffs counts
     * the entries whose skip_next is not 0; skip is 0 where it is): the look-up cost micro's
     * 16-write transactions 4-6% at 2 and 4 threads when it was made at every attempt. */
    struct tm_htm_site *site = NULL;
    uint32_t backoff = 0;
    if (TM_UNLIKELY(tx->htm_backoffs)) {
        site = tm_htm_site(tx);
        if (site->skip) { /* this site's recent attempts failed: the lock, for a while */
            site->skip--;
            tm_htm_missed(tx);
            return tm_begin_serial_c(prop, tx);
        }
        /* A try lowers the back-off by one, and every 4th try in a row halves it: a site
         * whose tries mostly fail stays mostly on the lock (an LRU list's head, where the
         * lock was 1.3x gl_wt's speed and the tries only cost), one that fails rarely soon
         * tries every time (memcached's statistics sections, 1 conflict in ~100 tries, where
         * lowering by one alone left 2 of 3 attempts on the lock; ssca2's one site, whose
         * conflicts come in bursts, 1 in ~500 tries, where halving every 16th try left 27% of
         * its 5.6 million transactions on the lock at 2 threads, and 1% with every 4th). Done
         * before the try, so that a commit does no work for it; a fallback below starts again
         * from the value before. */
        backoff = site->skip_next;
        if (backoff) {
            site->skip_next = (uint16_t)(++site->streak % 4 ? backoff - 1 : backoff >> 1);
            tx->htm_backoffs -= site->skip_next == 0;
        }
    }
    /* A wait for the lock's holder does not use up a try (every fallback would otherwise
     * abort the other threads' tries, which would fall back in turn), but ends a run of 64. */
    bool simulated = TM_UNLIKELY(tm_config.htm == TM_HTM_SIMULATE);
    bool own = false;     /* the fallback is this site's (its tries failed), not the lock's */
    bool lasting = false; /* ... and its last abort would recur (no _XABORT_RETRY) */
    for (unsigned tries = 0, runs = 0; tries < TM_HTM_TRIES && runs < 64; runs++) {
        /* relaxed: compared after an abort only, to tell whether the lock was taken since
         * (serial_fast.h: the holder counts its unlocks); the try reads the word anyway. */
        uint32_t unlocks;
        unsigned st;
        if (tried) { /* the entry's try (tm_begin_htm) */
            tried = false;
            unlocks = unlocks0;
            st = st0;
        } else {
            unlocks = atomic_load_explicit(&tm_serial_line.unlocks, memory_order_relaxed);
            st = simulated ? tm_htm_simulated(tries) : _xbegin();
            if (st == _XBEGIN_STARTED)
                return tm_htm_enter(tx);
        }
        if (TM_UNLIKELY(tm_stats_on))
            tm_hooks.stats_htm(tx, st);
        /* The program cancelled the transaction: the hardware rolled it back, which is all a
         * cancel must do to memory. Not a failure of the site: its back-off stays lowered. */
        if ((st & _XABORT_EXPLICIT) && _XABORT_CODE(st) == TM_HTM_CANCEL)
            return tm_cancel_htm_done(tx);
        /* A conflict while the lock is held is, most likely, the lock's acquisition (the
         * serial word is in every try's read set): the holder's, not this site's. Counted as
         * a try, it sent the thread to the lock after two of them, where its own attempts
         * aborted the other threads' tries in turn: ssca2's one site (5% of tries conflict)
         * ran 87% of its 5.6 million transactions on the lock at 2 threads, 1.3 s against
         * 0.6 s at 1 thread. A holder's section can also be over by the time the abort is
         * seen (ssca2's is a few stores): the unlock count tells that it was taken since the
         * try began. Without it, such aborts counted as the site's own sent ssca2's site to
         * its longest back-offs, and then both threads to the lock: 1.0-5.1 million of the
         * 5.6 million on the lock, 1.3-3.4 s at 2 threads against 1.05-1.10 s with it.
         * (A simulated conflict is the script's, not the lock's.) */
        if (((st & _XABORT_EXPLICIT) && _XABORT_CODE(st) == TM_HTM_LOCKED) ||
            ((st & _XABORT_CONFLICT) && !simulated &&
             (atomic_load_explicit(&tm_serial_word, memory_order_relaxed) != 0 ||
              atomic_load_explicit(&tm_serial_line.unlocks, memory_order_relaxed) != unlocks))) {
            /* The lock's holder runs alone: wait until it is done, as a serial waiter would,
             * but without the lock's line in modified state. Readers no longer excluded:
             * the software path decides. */
            for (unsigned k = 0; atomic_load_explicit(&tm_serial_word, memory_order_relaxed) &&
                                 k < 4096; k++)
                _mm_pause();
            if (atomic_load_explicit(&tm_bias_owner, memory_order_relaxed))
                break; /* the lock's path takes the bias back (serial.c) */
            if (!atomic_load_explicit(&tm_serial_excl, memory_order_relaxed))
                break;
            continue;
        }
        own = true;
        if (!(st & _XABORT_RETRY)) {
            /* With no cause bit, in a transaction GCC found no irrevocable call in (no system
             * call but through a pure function), the abort was an interrupt, a fault or a page
             * walk (tm_htm_touch), which the fallback's own run heals: not a reason to skip. */
            bool no_cause = tm_htm_no_cause(st);
            if (no_cause)
                tm_htm_touch();
            lasting = !no_cause || !(prop & pr_hasNoIrrevocable);
            break;
        }
        tries++;
    }
    tm_htm_missed(tx);
    /* Fell back because other threads kept the lock (64 waits) or adaptive left the mode: this
     * attempt takes the lock, and the site's back-off stays as it was before the try. */
    if (!own) {
        if (site && backoff) { /* the try lowered it (above) */
            tx->htm_backoffs += site->skip_next == 0;
            site->skip_next = (uint16_t)backoff;
        }
        return tm_begin_serial_c(prop, tx);
    }
    /* Fell back after aborts the hardware calls transient (conflicts): the lock for this
     * attempt only, as GCC's libitm does. Skipping the hardware for later attempts after such a
     * fallback, as after lasting aborts below, made two threads convoy on the lock: while one
     * skipped, its lock aborted the other's tries, which fell back in turn, and each fallback
     * kept the other thread's tries failing. STAMP's vacation (its transactions may cancel,
     * so the lock runs them with undo logging) took 1.66-1.79 s at 2 threads that way against
     * 0.60-0.88 s without the skip, ssca2 1.23-2.52 s against 1.09-1.16 s (libitm's own
     * 0.97-1.09 s; TMKIT_ALGO=htm, 5-6 runs each: docs/algorithms.md, "adaptive"). */
    if (!lasting)
        return tm_begin_serial_c(prop, tx);
    /* Fell back on the lock after an abort that may recur (capacity, a system call, a fault):
     * this site skips the hardware for its next 1, 3, 7, ... 1023 attempts, so that it pays
     * those aborts rarely; the thread's other sites keep trying. The first such fallback only
     * marks the site (skip_next 1), which the next try clears: one abort with no cause bit in a
     * transaction that may make a system call can be an interrupt as well (those in
     * transactions that cannot are not counted at all, above). */
    if (!site)
        site = tm_htm_site(tx);
    tx->htm_backoffs += site->skip_next == 0;
    site->streak = 0;
    site->skip_next = (uint16_t)(backoff < 1023 ? 2 * backoff + 1 : 1023);
    site->skip = backoff ? site->skip_next : 0;
    return tm_begin_serial_c(prop, tx);
}

/* A cancel of the outermost transaction (txn.c: tm_cancel): the try's fallback ends it. */
TM_HTM_TEXT __attribute__((target("rtm"), noreturn)) void tm_htm_cancel(void)
{
    _xabort(TM_HTM_CANCEL);
    tm_fatal("internal error: a hardware-transaction cancel outside a hardware transaction");
}

TM_HTM_TEXT __attribute__((target("rtm"), noreturn)) void tm_htm_abort(void)
{
    _xabort(TM_HTM_SOFTWARE);
    /* _xabort outside a hardware transaction does nothing: TM_F_HTM was set out of one */
    tm_fatal("internal error: a hardware-transaction abort outside a hardware transaction");
}

/* The commit of an outermost attempt on the hardware path (abi/entry.c, core/txn.c). */
TM_HTM_TEXT __attribute__((target("rtm"))) void tm_htm_commit(tm_tx *tx)
{
    tm_ext_counters_apply(tx); /* if it made additions */
    _xend();
    tx->flags = 0;
    if (TM_UNLIKELY(tm_stats_on))
        tm_hooks.stats_htm(tx, TM_HTM_COMMITTED);
    /* Waiters the writes may concern, with the logs still intact (the hook reads them).
     * relaxed: as a serial commit's unlock reads it (serial_fast.h); a waiter that registers
     * later reads the memory we wrote. */
    if (TM_UNLIKELY(atomic_load_explicit(&tm_serial_rwait, memory_order_relaxed) & TM_RWAIT_RETRY))
        tm_hooks.wait_wake(tx);
    if (TM_UNLIKELY((tx->n_actions | tx->locals.len | (uintptr_t)tx->stats_site) != 0)) {
        tm_commit_finish(tx, tm_config.algo->managed);
        return;
    }
    tm_commit_fast_reset(tx);
    tm_cm_count(tx);
}

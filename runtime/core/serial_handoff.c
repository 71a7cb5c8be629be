/* The hand-off phase of waiting for the serial lock (serial.c), before the passive phase
 * (serial_wait.c): a waiter spins, asks the holder for the lock, and the holder hands it over
 * at once or at the end of a turn.
 *
 * Why. Until 2026-11-26 a waiter went straight to the passive phase, whose every sleep lasts at
 * least the kernel's timer slack (50 us by default). Holders then had turns of ~60 us, so tiny
 * transactions at 2 threads ran at nearly one thread's biased speed (micro counter 53M/s, 3.6x
 * the mutex), but every wait cost a timer slack however short the holder's transaction, and a
 * thread whose progress waits for another's (a spin barrier, a token handed round) paid it at
 * every hand-off: PARSEC's streamcluster (TM port), whose barrier spins in one-load
 * transactions, took 1.36 s at 2 threads under serialirr and 1.23 s under adaptive against
 * 0.03-0.06 s under libitm; `micro --mode ring` made 14K hand-offs/s against libitm serialirr's
 * 0.88M. Spinning on the word instead (an earlier version: 100 pauses, then the sleeps) moved
 * the lock's line at every transaction, serialirr on a shared counter at 2 threads running at
 * 0.39x the mutex (2026-11-22). This phase keeps the turns and bounds the wait.
 *
 * The protocol (word values in serial_fast.h).
 *  - The waiter lets the holder run alone for TM_SERIAL_LEAD cycles, then loads the word once
 *    every TM_SERIAL_LOOK cycles, so the holder keeps the line between looks, and asks for the
 *    lock by turning 1 into 3.
 *  - The unlock that finds 3 (tm_serial_handoff) either hands the lock over, turning the free
 *    word into TM_SERIAL_HANDED, which only the waiter that asked takes, or refuses: the word
 *    stays free and the holder's next acquisition takes it again. It refuses for a turn of
 *    TM_SERIAL_TURN cycles from the first request (the waiter asks again at doubling
 *    intervals), unless its last TM_SERIAL_READS serial commits only read (GCC's pr_readOnly
 *    on each, a hint that only decides the turn's length): a thread spinning in read-only
 *    transactions until another writes hands over at once.
 *  - A free word is taken only once it has stayed free, with no unlock in between (the count
 *    next to the word), for TM_SERIAL_CONFIRM cycles: between two transactions of a run a
 *    holder frees it for a moment, longer than a look when its next acquisition must fetch the
 *    line back (~450 cycles here; a 300-cycle confirmation let waiters take the lock in those
 *    moments, turns of ~1 us and half the counter's throughput).
 *  - A thread holding the bias (core/bias.c) leaves the word at 0 and cannot be asked: the
 *    waiter takes the lock, and with it the bias, after a turn. So the bias is not granted to
 *    a streak that ends in a read-only transaction while waiters spin (bias.c).
 *  - A waiter that gets nothing within TM_SERIAL_SPIN cycles (a long irrevocable section)
 *    withdraws its request and waits passively.
 *  - At most TM_SERIAL_SPINNERS threads spin at a time; the others wait passively. Each
 *    spinner's looks make the holder fetch the line back, so on a machine with many cores a
 *    spinner per waiting thread would slow every transaction of the holder they wait for
 *    (docs/scaling.md). Two, not one: a holder that has just handed the lock over often
 *    starts waiting before the spinner it handed it to has left this phase (one allowed: the
 *    ring at 14K hand-offs/s, as with no spinning at all).
 *  - Nobody spins on one CPU, nor when this process has more transacting threads than CPUs
 *    and the kernel counts more running threads than CPUs (tm_serial_crowded): a spinner would
 *    take the CPU from the holder, or from the thread the holder waits for. streamcluster at 4
 *    threads on 2 CPUs: 3.4 s passive, 1.2-42 s with spinners yielding between looks, over
 *    60 s under libitm.
 *  - The plain lock (tm_serial_plain, adaptive's choice: core/cm_decide.c): no lead, no
 *    confirmation, looks every TM_SERIAL_LOOK_PLAIN cycles, and the holder hands over at the
 *    first request, as a test-and-test-and-set lock with a hand-over. Where each thread commits
 *    a short transaction between longer work of its own (STAMP's kmeans and ssca2), the turns
 *    keep the lock from a waiter that could have used it at once: kmeans ran 1.5x faster with
 *    the plain lock at 2 threads; where transactions come back to back (a shared counter) it
 *    ran 7x slower (bench/results/third-party, "The plain serial lock").
 * Measured (bench/results/scaling, its Record): streamcluster 2 threads 0.05-0.12 s
 * (libitm 0.03-0.06), the ring 0.36-0.54M hand-offs/s, back-to-back tiny transactions at 2
 * threads 0.8-1.2x of the passive-only lock's throughput.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>

#include "hooks.h"
#include "serial_fast.h"
#include "sys.h"

#define TM_SERIAL_LEAD 500u       /* TSC cycles (~0.2 us) the holder runs alone before we look */
#define TM_SERIAL_LOOK 1000u      /* TSC cycles between a spinner's loads of the word */
#define TM_SERIAL_LOOK_SOON 250u  /* the same just after a request, when a hand-over may come */
#define TM_SERIAL_ASK 1000u       /* TSC cycles before a refused spinner asks again (then 2x, */
#define TM_SERIAL_ASK_MAX 16000u  /* up to this) */
#define TM_SERIAL_TURN 150000u    /* TSC cycles (~58 us): a holder's turn */
#define TM_SERIAL_SPIN 200000u    /* TSC cycles (~77 us) of the hand-off phase at most */
#define TM_SERIAL_READS 2u        /* read-only serial commits in a row that hand over at once */
#define TM_SERIAL_HANDOFF 8000u   /* TSC cycles after which anyone takes a handed-over word */
#define TM_SERIAL_CONFIRM 2000u   /* TSC cycles (~0.8 us) a free word stays free before taken */
#define TM_SERIAL_CROWD_AGE 2600000u /* TSC cycles (~1 ms) a reading of the load is trusted */
#define TM_SERIAL_SPINNERS 2u     /* threads in the hand-off phase at a time, at most */
#define TM_SERIAL_LOOK_PLAIN 100u /* TSC cycles between a spinner's loads, the plain lock */

/* Nonzero: the plain lock (see the top). Written by adaptive's decider (cm_decide.c), read by
 * waiters and holders: relaxed, a setting that a waiter or an unlock reads a little late only
 * applies a little late. */
_Atomic uint32_t tm_serial_plain;

static uint32_t tm_serial_cpus; /* CPUs this process may run on */
static tm_line32 tm_serial_spinners; /* threads in the hand-off phase (its own line) */

/* Before any thread can transact (the constructors of core/ that follow the configuration). */
__attribute__((constructor(TM_INIT_CORE))) static void tm_serial_handoff_init(void)
{
    cpu_set_t set;
    int n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    tm_serial_cpus = n > 0 ? (uint32_t)n : 1;
}

static inline uint64_t tm_serial_tsc(void) { return __builtin_ia32_rdtsc(); }

/* The kernel's count of running threads, system-wide (/proc/loadavg's fourth field: running
 * / total), or ~0u if it cannot be read. Raw system calls: open and read are cancellation
 * points in libc. */
static uint32_t tm_serial_running(void)
{
    char buf[128];
    long fd = tm_sys3(SYS_openat, AT_FDCWD, (long)"/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ~0u;
    long n = tm_sys3(SYS_read, fd, (long)buf, sizeof buf - 1);
    tm_sys3(SYS_close, fd, 0, 0);
    if (n <= 0)
        return ~0u;
    buf[n] = 0;
    const char *p = buf;
    for (int spaces = 0; *p && spaces < 3; p++)
        spaces += *p == ' ';
    uint32_t r = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        r = r * 10 + (uint32_t)(*p - '0');
    return *p == '/' ? r : ~0u;
}

/* Would a spinner take a CPU that another thread would use? Yes on one CPU; no while this
 * process has no more transacting threads than CPUs (threads of other processes are the
 * kernel's to share out); else when the kernel counts more running threads than CPUs, read
 * (a few microseconds) at most every TM_SERIAL_CROWD_AGE cycles, and only if `refresh`: the
 * waiters refresh it, outside the lock; the holder's bias grant (bias.c) only reads it.
 * relaxed (all): a cached hint; two threads reading the file at once is harmless. */
static _Atomic uint64_t tm_serial_crowd_at; /* TSC of the last read */
static _Atomic uint32_t tm_serial_crowd;    /* its verdict */
static bool tm_serial_crowd_check(bool refresh)
{
    if (tm_serial_cpus < 2)
        return true;
    if (tm_bias_thread_count() <= tm_serial_cpus)
        return false;
    uint64_t now;
    if (refresh && (now = tm_serial_tsc()) - atomic_load_explicit(&tm_serial_crowd_at,
                                                                   memory_order_relaxed) >
                       TM_SERIAL_CROWD_AGE) {
        atomic_store_explicit(&tm_serial_crowd_at, now, memory_order_relaxed);
        atomic_store_explicit(&tm_serial_crowd, tm_serial_running() > tm_serial_cpus,
                              memory_order_relaxed);
    }
    return atomic_load_explicit(&tm_serial_crowd, memory_order_relaxed);
}

bool tm_serial_crowded(void) { return tm_serial_crowd_check(false); }
bool tm_serial_crowded_now(void) { return tm_serial_crowd_check(true); }

static bool tm_serial_spin(bool (*trylock)(void))
{
    uint64_t t0 = tm_serial_tsc(), asked = 0, since = 0, ask_every = TM_SERIAL_ASK, t;
    uint32_t last_w = 1, last_n = 0;
    /* relaxed: see tm_serial_plain. */
    const bool plain = atomic_load_explicit(&tm_serial_plain, memory_order_relaxed);
    const uint64_t lead = plain ? 0 : TM_SERIAL_LEAD, confirm = plain ? 0 : TM_SERIAL_CONFIRM;
    while (tm_serial_tsc() - t0 < lead)
        __builtin_ia32_pause(); /* the holder runs alone: the line stays in its cache */
    for (;;) {
        /* relaxed loads, requests and hand-over checks: hints; the compare-and-swap that takes
         * the lock is seq_cst, as the trylock's (serial_fast.h), and orders the critical
         * section. Word and count in one load: the same pair at two looks means that nobody
         * took the lock in between if the word was free (0) or handed over at both (an unlock
         * changes the count). */
        uint64_t both = atomic_load_explicit(&tm_serial_line.both, memory_order_relaxed);
        uint32_t w = (uint32_t)both, n = (uint32_t)(both >> 32);
        t = tm_serial_tsc();
        if (w != last_w || n != last_n) {
            last_w = w;
            last_n = n;
            since = t;
        }
        uint64_t still = t - since; /* how long the word and count have stayed as they are */
        if (w == TM_SERIAL_HANDED && (asked || still >= TM_SERIAL_HANDOFF)) {
            /* handed to us, or to a spinner that has not come for it (descheduled, or gone
             * passive after its request) */
            uint32_t h = TM_SERIAL_HANDED;
            if (atomic_compare_exchange_strong_explicit(&tm_serial_word, &h, 1,
                                                        memory_order_seq_cst, memory_order_relaxed))
                return true;
            continue;
        }
        /* Free, and nobody has taken it for TM_SERIAL_CONFIRM cycles: the holder is not between
         * two transactions of a run, which frees the word only for a moment. If a thread holds
         * the bias (which leaves the word at 0, core/bias.c), only after a turn: it cannot be
         * asked, and taking the lock takes the bias back. */
        if (w == 0 && still >= confirm &&
            (t - t0 >= TM_SERIAL_TURN ||
             !atomic_load_explicit(&tm_bias_owner, memory_order_relaxed)) &&
            trylock())
            return true;
        if (w == 2)
            return false; /* registered sleepers: join them (the unlock wakes one) */
        if (w == 1 && t - asked >= ask_every) { /* not yet asked, or refused: ask (again) */
            if (asked && ask_every < TM_SERIAL_ASK_MAX)
                ask_every *= 2; /* refused: a writer's turn; ask less often */
            uint32_t held = 1;
            atomic_compare_exchange_strong_explicit(&tm_serial_word, &held, 3, memory_order_relaxed,
                                                    memory_order_relaxed);
            asked = t;
        }
        if (t - t0 > TM_SERIAL_SPIN) {
            uint32_t mine = 3; /* withdraw: a hand-over would wait for our registration */
            atomic_compare_exchange_strong_explicit(&tm_serial_word, &mine, 1, memory_order_relaxed,
                                                    memory_order_relaxed);
            return false;
        }
        /* One load per look: the holder keeps its line meanwhile. Soon after a request, when
         * the holder may hand the lock over, we look more often. */
        uint64_t gap = plain                                 ? TM_SERIAL_LOOK_PLAIN
                       : w == 0 && still < TM_SERIAL_CONFIRM ? TM_SERIAL_CONFIRM
                       : t - asked < TM_SERIAL_ASK           ? TM_SERIAL_LOOK_SOON
                                                             : TM_SERIAL_LOOK;
        while (tm_serial_tsc() - t < gap)
            __builtin_ia32_pause();
    }
}

bool tm_serial_spin_wait(bool (*trylock)(void))
{
    /* A spinner could take the CPU from the holder, or from a thread whose progress the
     * holder waits for (see the top). */
    if (tm_serial_crowd_check(true))
        return false;
    /* At most TM_SERIAL_SPINNERS at a time: each looks at the lock's line every few hundred
     * cycles, and the holder fetches it back after each look. relaxed: a count of spinners,
     * a hint with no data behind it. */
    if (atomic_fetch_add_explicit(&tm_serial_spinners.w, 1, memory_order_relaxed) >=
        TM_SERIAL_SPINNERS) {
        atomic_fetch_sub_explicit(&tm_serial_spinners.w, 1, memory_order_relaxed);
        return false;
    }
    bool got = tm_serial_spin(trylock);
    atomic_fetch_sub_explicit(&tm_serial_spinners.w, 1, memory_order_relaxed);
    return got;
}

void tm_serial_handoff(tm_tx *holder, uint32_t unlocks)
{
    /* The holder keeps the lock for a turn of TM_SERIAL_TURN cycles from the first request it
     * refused: the exchange that found 3 has freed the word, and its next acquisition takes it
     * again (the asking spinner does not take a word that was free only for a moment). Unless
     * its last TM_SERIAL_READS serial commits, this one included, only read (GCC's
     * pr_readOnly: a hint, but only the turn's length depends on it): a thread that spins in
     * read-only transactions waiting for another's write hands over at once. One read-only
     * transaction among writing ones (an audit among transfers) does not end a turn: that cut
     * the bank's turns to ~100 transactions, each change of holder moving the accounts' lines,
     * at 0.3x the throughput. The plain lock has no turns: it hands over at the first request.
     * relaxed: see tm_serial_plain. */
    if (holder && !atomic_load_explicit(&tm_serial_plain, memory_order_relaxed)) {
        const uint32_t reads = ((1u << TM_SERIAL_READS) - 1) * pr_readOnly;
        if ((holder->cm.ro_hist & reads) != reads) {
            uint64_t now = tm_serial_tsc();
            if (!holder->cm.turn_asked) {
                holder->cm.turn_asked = now;
                return;
            }
            if (now - holder->cm.turn_asked < TM_SERIAL_TURN)
                return;
        }
        holder->cm.turn_asked = 0;
    }
    /* Free since our unlock -> handed: only the spinner that asked takes it (above), or,
     * after TM_SERIAL_HANDOFF cycles, any spinner, or a waiter's registration (serial.c). The
     * asker is still waiting: it asked while we held the lock, and a waiter leaves only with
     * the lock. The pair (word, count) as our unlock left it, not just a free word: our
     * caller may have run on (commit actions) or been preempted since the unlock, and a word
     * that someone took and freed again meanwhile may be wanted by nobody now; handed over,
     * it would keep speculative readers waiting for it to be freed (a hang of micro reads-16
     * at 2 threads under adaptive, make test, 2026-11-26). relaxed: the spinner's
     * compare-and-swap (seq_cst) pairs with our exchange, which released the transaction's
     * writes; a failure means someone took the lock meanwhile, which is as good. */
    uint64_t mine = (uint64_t)unlocks << 32;
    atomic_compare_exchange_strong_explicit(&tm_serial_line.both, &mine, mine | TM_SERIAL_HANDED,
                                            memory_order_relaxed, memory_order_relaxed);
}

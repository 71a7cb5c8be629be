/* The per-thread transaction descriptor (the dispatch table every execution mode implements is in
 * dispatch.h, which this includes).
 *
 * A descriptor belongs to one thread while it lives and is recycled when the thread exits (see
 * thread.c). Fields above `shared_ts` are touched only by the owner thread; `shared_ts` sits on
 * its own cache line and is the only field other threads read (serial-lock drain, quiescence).
 */
#ifndef TMKIT_TX_H
#define TMKIT_TX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dispatch.h"
#include "itm_abi.h"
#include "lines.h"
#include "log.h"
#include "tx_layout.h"

#define TM_HIDDEN __attribute__((visibility("hidden")))
#define TM_LIKELY(x) __builtin_expect(!!(x), 1)
#define TM_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* A global word that many threads write (clocks, the serial lock), alone on its cache line: the
 * member's alignment makes the type a whole line, so no variable the linker places next to it
 * shares the line. A line shared with read-mostly variables turns every read of those into a
 * miss after each write (the serial lock word shared one with the flags every begin and unlock
 * reads: 2 threads on a shared counter ran at 0.74x the mutex instead of 0.88x). */
typedef struct { _Alignas(64) _Atomic uint64_t w; } tm_line64;
typedef struct { _Alignas(64) _Atomic uint32_t w; } tm_line32;
_Static_assert(sizeof(tm_line64) == 64 && sizeof(tm_line32) == 64, "one cache line each");

#define TM_CALLER_CACHE 16 /* tm_tx.caller_pc */

/* Writer slots in orec versions (tm_tx.orec_slot, given out by thread.c; algo/orec.h packs the
 * slot into the low TM_OREC_SLOT_BITS bits of an orec). */
#define TM_OREC_SLOT_BITS 10
#define TM_OREC_SLOTS (1u << TM_OREC_SLOT_BITS)

/* Layout shared with abi/checkpoint.S. */
typedef struct tm_jmpbuf {
    uint64_t cfa; /* caller's stack pointer after _ITM_beginTransaction returns */
    uint64_t rbx, rbp, r12, r13, r14, r15;
    uint64_t pc; /* return address into the transaction's code */
    uint32_t mxcsr;
    uint16_t fpcw;
    uint16_t pad;
} tm_jmpbuf;

typedef struct tm_tx tm_tx;

/* Why an attempt ended; also the statistics categories. */
typedef enum tm_abort_reason {
    TM_ABORT_READ_CONFLICT,  /* a location read was changed by a committed writer */
    TM_ABORT_WRITE_CONFLICT, /* could not acquire ownership to write */
    TM_ABORT_VALIDATE,       /* commit-time or upgrade validation failed */
    TM_ABORT_CANCEL,         /* __transaction_cancel */
    TM_ABORT_RETRY,          /* _ITM_abortTransaction(userRetry | TMConflict) */
    TM_ABORT_SERIAL,         /* had to restart to run serially (upgrade contention, fallback) */
    TM_ABORT_REASONS
} tm_abort_reason;

typedef struct tm_checkpoint {
    tm_jmpbuf jb;
    uint32_t prop;
    uint32_t nesting; /* tx->nesting before this transaction began */
    size_t undo_mark, locals_mark, wset_len, wset_undo_mark, wset_nest_mark;
    size_t actions_mark;
    size_t counters_mark; /* ext.npend at its start (ext/counter.c) */
    uint32_t catch_count;
    const tm_dispatch *disp_before;
    uint32_t flags_before;
} tm_checkpoint;

enum tm_action_kind {
    TM_ACT_NONE,            /* discarded */
    TM_ACT_COMMIT_USER,     /* _ITM_addUserCommitAction */
    TM_ACT_UNDO_USER,       /* _ITM_addUserUndoAction */
    TM_ACT_FREE_ON_COMMIT,  /* deferred free / delete */
    TM_ACT_FREE_ON_ABORT,   /* allocation made by the transaction */
    TM_ACT_COUNTER,         /* the transaction's tm_counter_add additions, applied at commit
                               (ext/counter.c; one such action, the additions in ext.pend) */
};

typedef struct tm_action {
    uint32_t kind;
    void (*fn)(void *arg, uintptr_t aux);
    void *arg;
    uintptr_t aux;
} tm_action;

enum tm_tx_flags {
    TM_F_SERIAL = 1u << 0,      /* holds the serial lock exclusively */
    TM_F_IRREVOCABLE = 1u << 1, /* can no longer roll back */
    TM_F_READER = 1u << 2,      /* registered as a speculative transaction (shared_ts set) */
    TM_F_FORCE_SERIAL = 1u << 3, /* the next attempt must run serially */
    TM_F_BIASED = 1u << 4,       /* runs under the single-thread bias (bias.c) */
    TM_F_HTM = 1u << 5           /* runs as a hardware transaction (htm.c) */
};

#define TM_TS_INACTIVE UINT64_MAX
/* A committed writer waiting for privatization safety while it still holds locks (dispatch
 * `published`): other writers' quiescence need not wait for it (it is at least every commit
 * time), but a drain of the serial lock does (it is not INACTIVE), so no change of algorithm
 * happens while orecs are held. */
#define TM_TS_QUIESCING (UINT64_MAX - 1)

/* What the next cancel of the running attempt does instead of cancelling (ext/wait.c). */
enum tm_wait_req { TM_WAIT_NONE, TM_WAIT_RETRY, TM_WAIT_COND };

#define TM_GROUPS_HELD 8 /* lock groups a thread may hold at once (ext/group.c) */
#define TM_WATCH_WORDS 4 /* a 256-bit filter of orec indices (ext/wake.c) */
#define TM_HTM_SITES 16  /* transaction sites whose hardware failures a thread remembers (htm.c) */

typedef struct tm_ext_state {
    /* Read by committing writers while the owner sleeps. */
    _Atomic uint32_t waiting; /* 1: the owner sleeps in tm_retry/tm_cond_wait, wake it */
    _Atomic uint32_t wake;    /* futex word: every wake-up bumps it */
    _Atomic uint32_t watch_all; /* 1: no read set known, any writing commit wakes it */
    _Atomic uint32_t asleep;  /* nonzero: the owner is in (or entering) its futex wait on wake */
    _Atomic uint64_t watch[TM_WATCH_WORDS]; /* what the attempt read (orec-index filter) */
    /* Owner only. */
    uint8_t req;           /* enum tm_wait_req: set by the request, consumed by the cancel */
    bool nopriv;           /* tm_no_privatization was called in transaction nopriv_id */
    uint32_t nopriv_id;
    uint32_t woken_id;     /* id of the transaction last woken from a wait (statistics) */
    uint32_t cond_val;     /* TM_WAIT_COND: the sequence number the attempt read */
    _Atomic uint32_t *cond_seq;
    uint64_t deadline;     /* CLOCK_MONOTONIC ns to wake at anyway (0: none) */
    uint32_t wake_val;     /* TM_WAIT_RETRY: ext.wake before the wait was published */
    uint32_t idle_wakes;   /* this writer's commits in a row that found no waiter (wake.c) */
    uint32_t wait_slot;    /* TM_WAIT_RETRY: its slot in tm_wait_slot, or TM_WAIT_SLOTS */
    bool sleep_skip;       /* what the attempt read changed already: run again at once */
    struct tm_site *sleep_site; /* the statistics' site of the waiting transaction, or NULL */
    /* Deferred counters (ext/counter.c): this descriptor's share of every counter, under a
     * sequence lock so a reader sees each transaction's additions all or none. */
    _Alignas(64) _Atomic uint32_t cseq;
    struct tm_counter_dir *_Atomic counters;
    /* Owner only: the running transaction's additions, one entry per counter (merged). */
    struct tm_counter_pend *pend;
    size_t npend, cap_pend;
    /* Lock groups (ext/group.c): the groups this thread holds. Writers of a group scan every
     * descriptor's gslot for readers; the rest is the owner's. */
    _Alignas(64) _Atomic uint32_t *_Atomic gslot[TM_GROUPS_HELD];
    uint32_t gdepth[TM_GROUPS_HELD]; /* 0: slot free; nesting depth otherwise */
    bool gexcl[TM_GROUPS_HELD];      /* held exclusively (tm_group_lock) */
    uintptr_t gsite[TM_GROUPS_HELD]; /* the call that took it (statistics) */
    uint64_t gsince[TM_GROUPS_HELD]; /* TSC when an exclusive hold began (statistics), or 0 */
    uint32_t gheld;                  /* slots in use */
    uintptr_t gmax;                  /* the highest group held before the running transaction
                                      * began (the order check) */
    /* Inside a transaction (ext/group_tx.c): what its end does with each slot (TM_GEND_*), its
     * commit action registered, the group a rolled-back attempt waits for and the TSC cycles
     * such waits took (statistics). */
    uint8_t gend[TM_GROUPS_HELD];
    bool gcommit;
    _Atomic uint32_t *gwait;
    uint64_t gwait_cycles;
    /* The group this thread waits for (ext/group*.c; its address | 1: the wait of a transaction
     * that can no longer roll back), or NULL. Read by other threads: a writer's drain steps
     * back for such a transaction, whose deadlock check reads it too (ext/group_wait.c). */
    _Atomic uint32_t *_Atomic gblocked;
} tm_ext_state;

struct tm_tx {
    /* The outermost transaction's saved registers, written directly by checkpoint.S, which
     * also reads `nesting`: both offsets are fixed (static asserts below). */
    tm_jmpbuf jb0;
    /* The fields the biased begin sets (checkpoint.S, at the offsets in tx_layout.h). */
    uint32_t nesting; /* 0 = not in a transaction; flat nesting depth otherwise */
    uint32_t flags;
    uint32_t prop;
    uint32_t retries; /* failed attempts of the current transaction */
    _ITM_transactionId_t id;
    _ITM_transactionId_t id_next, id_end; /* equal: take a new block (general begin) */
    uint8_t mode;  /* == disp->mode, cached for the barriers */
    bool eh_saved; /* uncaught_at_start holds the count at the transaction's start */
    size_t n_cps;
    uint32_t irrevocable_cps; /* checkpoints that existed when it went irrevocable (uncancellable) */
    /* A batch of whole attempts of one site (stats/stats.h: tm_stats_whole_load), counted by
     * checkpoint.S with one decrement in this line, which the begin writes anyway: on a third
     * line, the statistics added a cache miss to every transaction of a workload that evicts
     * the descriptor between transactions (hashset-262144-u10: 0.79x of stats off). */
    int32_t stats_w_left; /* attempts it may still take, plus one */
    uintptr_t stats_w_pc; /* the batch's site; bit 63 set: serial attempts; 0: no batch */
    const tm_dispatch *disp;
    int32_t stats_w_start;              /* stats_w_left when loaded: the batch took the difference */
    uint32_t stats_w_miss;              /* whole attempts of other sites since it was loaded */
    struct tm_site *stats_w_site;       /* the batch's site, NULL: no batch */
    uint64_t snapshot; /* algorithm's start time / sequence number */
    uint64_t owned;    /* algorithm scratch (e.g. gl_wt: holds the global lock) */
    /* Algorithm-private allocation, freed with the descriptor's logs. Adaptive may run several
     * algorithms in one thread, so those that use it share its type (orec.h: tm_locks); orec_lazy
     * and orec_eager once kept different types here, and each misread the other's. */
    void *algo_state;
    struct tm_site *stats_site;    /* site of the running attempt, NULL when not counting */
    /* An attempt counted whole (stats.h): the site counter (fast or fast_serial) its commit
     * adds one to, NULL if none. Counted when the commit returns, not when the attempt starts,
     * so that a process killed inside it shows exactly the transactions that committed. */
    uint64_t *stats_pending;
    /* Per-site counters (stats/stats.c); kept across owners. After the two above, which the
     * commit fast paths read, so that those stay on the line of disp and snapshot. */
    struct tm_site_table *stats;
    uint64_t stats_t0;             /* TSC at the start of the running attempt (0: not timed) */
    /* Recently used sites (stats.h): 8 sets chosen by a hash of the pc, 2 ways (k and k + 8),
     * the most recent in way 0; stats_cache_pc holds their pcs, 0 (no pc) forcing a miss. */
    struct tm_site *stats_cache[16];
    uintptr_t stats_cache_pc[16];
    /* The site of the thread's last attempt, tried before the hash (a loop of one
     * transaction, the common case, then costs a compare). stats_l0_pc 0: none. */
    uintptr_t stats_l0_pc;
    struct tm_site *stats_l0;
    /* orec_eager (algo/orec_eager.c): the largest orec value its snapshot accepts (orec.h:
     * tm_orec_bound), its bit in the orecs' readers' words (1 << orec_slot for slots 1..63,
     * else bit 0, which those descriptors share), its read log, this descriptor's writer slot
     * in orec versions (1 .. TM_OREC_SLOTS - 1; ~0: none), the newest version it released, and
     * the readers' bits its committing writer found on its orecs (the descriptors its
     * privatization wait is for: tm_quiesce_ended). */
    uint64_t obound, obit;
    tm_olog olog;
    uint64_t orec_slot, orec_last, oreaders;
    tm_rset rset;
    tm_wset wset;
    tm_undo undo;   /* memory (write-through and serial modes) */
    tm_undo locals; /* _ITM_L* */
    tm_action *actions;
    size_t n_actions, cap_actions;
    tm_checkpoint *cps;
    size_t cap_cps;
    struct {
        /* adaptive commits of this descriptor, ever: written only by the owner, summed by the
         * deciding thread once per epoch (cm.c) */
        _Atomic uint64_t commits;
        /* those of them not flagged pr_readOnly by the compiler: the same owner and reader */
        _Atomic uint64_t wcommits;
        /* attempts in the htm mode that took the serial lock instead of the hardware (htm.c):
         * the same */
        _Atomic uint64_t hwmissed;
        uint32_t spec_gen; /* speculative-algorithm generation of the running attempt */
        uint32_t bias_streak; /* serial commits since the last grant or contention (bias.c) */
        uint64_t turn_asked; /* TSC of the first hand-off we refused in this turn, or 0
                              * (serial_handoff.c) */
        uint32_t ro_hist; /* pr_readOnly of our last serial commits, the newest in its own
                           * bit, older ones shifted left (serial_handoff.c) */
        uint32_t commit_cycles; /* TSC cycles per commit of ours over our last TM_CM_WINDOW
                                 * counted commits, capped; 0 before two windows (cm.c) */
        uint64_t window_at;     /* TSC at our last window's end, or 0 */
        /* restarts that skipped the back-off for that (txn.c): written by the owner, summed by
         * the report (cm.c) */
        _Atomic uint64_t quick_restarts;
        /* the deadline of our claim to a turn (fair.c), or 0: the owner's alone */
        uint64_t fair_claim;
        /* claims made and begins that waited for another's (fair.c): written by the owner,
         * summed by the report (cm.c) */
        _Atomic uint64_t fair_claims, fair_waits;
    } cm;                  /* contention manager state (cm.c) */
    uint64_t rng;
    /* C++ exception state (abi/eh.c; eh_saved is above). */
    void *eh_in_flight;
    uint32_t catch_count;
    unsigned int uncaught_at_start;
    /* TCB (the %fs base) of the thread whose TM word points here, 0 if none (see tm_cur_set). */
    uintptr_t tcb;
    /* Stack bounds of the owner thread (dead-frame checks). */
    uintptr_t stack_lo, stack_hi;
    bool stack_known;
    /* NOrec and orec_lazy: the outermost attempt's dead frames [dead_lo, dead_lo + dead_len)
     * (below its begin frame, set by their begin), a barrier's quick test before the exact one
     * (core/txn.c: tm_dead_stack). */
    uintptr_t dead_lo, dead_len;
    /* Nonzero while the runtime runs program code inside an attempt that is not part of it (a
     * nested transaction's undo actions): the program's memcpy stays plain (abi/interpose.c). */
    uint8_t plain_calls;
    uint32_t htm_backoffs; /* entries of htm_sites (below) in back-off: 0, no look-up (htm.c) */
    uint32_t spare_;       /* free: shared_ts stays at tx_layout.h's offset */

    _Alignas(64) _Atomic uint64_t shared_ts; /* TM_TS_INACTIVE outside speculative execution */
    _Atomic int in_use;
    tm_tx *_Atomic next; /* registry list, push-only */
    /* Speculative attempts begun (tm_reader_enter), written by the owner only: quiescence
     * that cannot rely on snapshots passing a commit time waits for it to change
     * (tm_quiesce_ended; orec_eager). */
    _Atomic uint64_t attempts;
    /* A copy of obit, set before the descriptor joins the registry and never changed: the
     * quiescence of a writer whose orecs show readers' bits waits only for the descriptors
     * with those bits, and reads this on a line it reads anyway. */
    uint64_t qbit;
    char pad_[64 - 3 * sizeof(uint64_t) - sizeof(int) - sizeof(void *)];
    /* Nonzero while the thread does a tmkit.h atomic on the orecs (ext/atomic_orec.c): the
     * serial lock's writer waits for it as for shared_ts, quiescence does not look at it. A
     * line of its own: such an operation writes it twice, and a line that every committing
     * writer reads (shared_ts) would then move between the cores at each operation. */
    _Alignas(64) _Atomic uint32_t atomic_busy;

    /* The extensions' state (runtime/ext/): blocking waits and deferred counters. Other
     * threads read it (committing writers look for waiters to wake, counter readers sum the
     * values), so it has lines of its own, after everything the fast paths touch. */
    _Alignas(64) tm_ext_state ext;

    /* abi/interpose.c: return addresses of memcpy/memset/strlen calls made inside attempts
     * and the start of the function each lies in (direct-mapped; 0: none yet). */
    _Alignas(64) uintptr_t caller_pc[TM_CALLER_CACHE];
    uintptr_t caller_fn[TM_CALLER_CACHE];

    /* Per transaction site (its return address, hashed): the site's serial-mode attempts that
     * take the lock without trying a hardware transaction first (skip), set from skip_next after
     * one fell back on the lock, which each try in hardware lowers (htm.c); streak: the tries
     * since the last fallback. Per site, so that one site that overflows the hardware or makes a
     * system call does not send the thread's others to the lock. */
    struct tm_htm_site {
        uintptr_t pc;
        uint16_t skip, skip_next;
        uint32_t streak;
    } htm_sites[TM_HTM_SITES];
};

/* The address is in the outermost attempt's dead frames (tm_tx.dead_lo): NOrec's and orec_lazy's
 * barriers then take their general path, which decides with tm_dead_stack. */
static inline __attribute__((always_inline)) bool tm_dead_maybe(const tm_tx *tx, const void *addr)
{
    return (uintptr_t)addr - tx->dead_lo < tx->dead_len;
}

/* checkpoint.S uses these offsets and constants (tx_layout.h). */
#define TM_LAYOUT_IS(field, off) \
    _Static_assert(offsetof(struct tm_tx, field) == (off), "tx_layout.h: offset of " #field)
TM_LAYOUT_IS(jb0, TM_TX_JB0);
TM_LAYOUT_IS(jb0.pc, TM_TX_JB0_PC);
TM_LAYOUT_IS(nesting, TM_TX_NESTING);
TM_LAYOUT_IS(flags, TM_TX_FLAGS);
TM_LAYOUT_IS(prop, TM_TX_PROP);
TM_LAYOUT_IS(retries, TM_TX_RETRIES);
TM_LAYOUT_IS(id, TM_TX_ID);
TM_LAYOUT_IS(id_next, TM_TX_ID_NEXT);
TM_LAYOUT_IS(id_end, TM_TX_ID_END);
TM_LAYOUT_IS(mode, TM_TX_MODE);
TM_LAYOUT_IS(eh_saved, TM_TX_EH_SAVED);
TM_LAYOUT_IS(n_cps, TM_TX_N_CPS);
TM_LAYOUT_IS(irrevocable_cps, TM_TX_IRREVOCABLE_CPS);
TM_LAYOUT_IS(shared_ts, TM_TX_SHARED_TS);
TM_LAYOUT_IS(stats_w_pc, TM_TX_STATS_W_PC);
TM_LAYOUT_IS(stats_w_left, TM_TX_STATS_W_LEFT);
TM_LAYOUT_IS(stats_l0_pc, TM_TX_STATS_L0_PC);
TM_LAYOUT_IS(stats_l0, TM_TX_STATS_L0);
TM_LAYOUT_IS(stats_pending, TM_TX_STATS_PENDING);
#undef TM_LAYOUT_IS
_Static_assert(sizeof(tm_jmpbuf) == 72, "checkpoint.S layout of tm_jmpbuf");
_Static_assert(sizeof(_ITM_transactionId_t) == 4 && sizeof(size_t) == 8, "checkpoint.S sizes");
_Static_assert(sizeof(((tm_tx *)0)->stats_w_left) == 4 &&
               sizeof(((tm_tx *)0)->irrevocable_cps) == 4, "checkpoint.S operand sizes");
_Static_assert(TM_PR_BIASED_NEEDS == (pr_hasNoAbort | pr_uninstrumentedCode), "tx_layout.h");
_Static_assert(TM_A_UNINSTRUMENTED == (a_runUninstrumentedCode | a_saveLiveVariables), "tx_layout.h");
_Static_assert(TM_F_BIASED_IRREVOCABLE == (TM_F_BIASED | TM_F_IRREVOCABLE), "tx_layout.h");
_Static_assert(TM_F_SERIAL_IRREVOCABLE == (TM_F_SERIAL | TM_F_IRREVOCABLE), "tx_layout.h");

/* The saved registers of checkpoint k (0 = outermost). */
static inline tm_jmpbuf *tm_cp_jb(tm_tx *tx, size_t k) { return k ? &tx->cps[k].jb : &tx->jb0; }

/* One more to a count that only one thread writes (a descriptor's own, or the deciding
 * thread's): relaxed, as its readers sum it without order; a load and a store, no locked
 * instruction, since nobody else writes it. */
static inline void tm_count_add1(_Atomic uint64_t *n)
{
    atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed) + 1, memory_order_relaxed);
}

/* One more in cm.wcommits unless GCC flagged the transaction read-only (adaptive's figure,
 * cm.c). relaxed: only the owner writes the count; the decider sums it without order. */
static inline void tm_cm_count_writing(tm_tx *tx)
{
    atomic_store_explicit(&tx->cm.wcommits,
                          atomic_load_explicit(&tx->cm.wcommits, memory_order_relaxed) +
                              !(tx->prop & pr_readOnly),
                          memory_order_relaxed);
}

static inline void tm_set_disp(tm_tx *tx, const tm_dispatch *d)
{
    tx->disp = d;
    tx->mode = d->mode;
}

#include "tx_modules.h"

#endif

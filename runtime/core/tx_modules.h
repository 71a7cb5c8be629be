/* The core modules' interfaces that work on the descriptor: the current thread's descriptor
 * (thread.c), the serial lock (serial.c), the fault guard, the single-thread bias, contention
 * management, begin/commit, checkpoints, utilities and exception state. Included by tx.h after
 * the descriptor's definition, which the inline functions here need; include tx.h, not this.
 * Everything declared here is defined in core; what core calls in the layers above is in
 * hooks.h.
 */
#ifndef TMKIT_TX_MODULES_H
#define TMKIT_TX_MODULES_H
#ifndef TMKIT_TX_H
#error "include core/tx.h, which includes this file"
#endif

/* thread.c */
extern __thread tm_tx *tm_cur __attribute__((tls_model("initial-exec"))) TM_HIDDEN;

/* The descriptor's pseudo-random numbers (xorshift64; back-off, statistics sampling). */
static inline uint64_t tm_rng_next(tm_tx *tx)
{
    tx->rng ^= tx->rng << 13;
    tx->rng ^= tx->rng >> 7;
    tx->rng ^= tx->rng << 17;
    return tx->rng;
}

/* The barriers' copy of tm_cur, kept in the thread control block word glibc reserves for the
 * TM runtime (tcbhead_t.__private_tm[0], at %fs:0x50 on x86-64; libitm uses these words too,
 * and only one runtime can be loaded under the libitm soname). It costs one load, where the
 * initial-exec variable costs a GOT load and a dependent %fs load. Unlike a TLS variable the
 * word is not reinitialized when glibc reuses a dead thread's stack and TCB for a new thread,
 * so it must be NULL whenever its thread has no descriptor: a thread clears it when it gives
 * its descriptor back (thread.c), and a forked child clears it in the TCBs of the parent's
 * other threads, which glibc keeps for reuse (tx->tcb says where; tm_fork_child). Its offset,
 * TM_TCB_WORD, is in tx_layout.h. */
static inline __attribute__((always_inline)) tm_tx *tm_cur_tcb(void)
{
    tm_tx *tx;
    __asm__("movq %%fs:%c1, %0" : "=r"(tx) : "i"(TM_TCB_WORD));
    return tx;
}

static inline void tm_cur_set(tm_tx *tx)
{
    if (tm_cur)
        tm_cur->tcb = 0;
    if (tx) {
        uintptr_t self;
        __asm__("movq %%fs:0, %0" : "=r"(self)); /* tcbhead_t.tcb: the TCB's own address */
        tx->tcb = self;
    }
    tm_cur = tx;
    __asm__ volatile("movq %0, %%fs:%c1" : : "r"(tx), "i"(TM_TCB_WORD) : "memory");
}
TM_HIDDEN tm_tx *tm_tx_create(void);
TM_HIDDEN tm_tx *tm_registry_head(void);

static inline tm_tx *tm_self(void)
{
    tm_tx *tx = tm_cur;
    if (TM_UNLIKELY(tx == NULL))
        tx = tm_tx_create();
    return tx;
}

/* serial.c: the serial lock. Speculative transactions are readers (one flag each, no shared
 * counter); serial and irrevocable transactions are the writer. */
/* false: readers are excluded (adaptive runs serially), run this attempt serially */
TM_HIDDEN bool tm_reader_enter(tm_tx *tx);
static inline void tm_reader_exit(tm_tx *tx)
{
    /* release: the transaction's accesses happen-before a writer that observes INACTIVE. */
    TM_LINES(TM_LK_DESC, &tx->shared_ts);
    atomic_store_explicit(&tx->shared_ts, TM_TS_INACTIVE, memory_order_release);
    tx->flags &= ~TM_F_READER;
}
TM_HIDDEN void tm_serial_acquire(tm_tx *tx);
TM_HIDDEN bool tm_serial_try_upgrade(tm_tx *tx);
TM_HIDDEN void tm_serial_exclude_readers(bool on);
extern _Atomic uint32_t tm_serial_excl TM_HIDDEN;

/* A hint, rechecked under the lock: adaptive runs serially and no reader can be running. */
static inline bool tm_serial_excluding(void)
{
    /* relaxed: tm_serial_acquire rechecks it under the lock before skipping the drain. */
    return atomic_load_explicit(&tm_serial_excl, memory_order_relaxed);
}
TM_HIDDEN void tm_serial_release(tm_tx *tx);
/* Privatization safety after a commit at time ts: waits until every other transaction is past
 * ts or finished; `publish` (NULL, or the algorithm's, see tm_dispatch) runs once before the
 * first wait. */
TM_HIDDEN void tm_quiesce(tm_tx *tx, uint64_t ts, void (*publish)(uint64_t ts));
/* thread.c: the descriptor whose qbit is 1 << k (k >= 1; NULL: none yet). Descriptors are
 * pooled, never freed, and keep their bit: an entry never changes once set. */
extern tm_tx *_Atomic tm_desc_by_bit[64] TM_HIDDEN;
/* The same by the end of the attempts running now (for tm_dispatch.quiesce_ended). */
TM_HIDDEN void tm_quiesce_ended(tm_tx *tx, uint64_t ts);
/* The stack frames a restart to the checkpoint whose frame top is `top` discards. */
TM_HIDDEN tm_skip tm_dead_frames(const tm_tx *tx, uintptr_t top);
/* Redo logs: [addr, addr + len) lies in frames the innermost checkpoint's restart discards, which
 * the barriers access in place: tm_dead_write, and tm_dead_read (false: take the general path,
 * the write set holds some of the bytes). txn.c. */
TM_HIDDEN bool tm_dead_stack(tm_tx *tx, const void *addr, size_t len);
TM_HIDDEN void tm_dead_write(tm_tx *tx, void *dst, const void *src, size_t len);
TM_HIDDEN bool tm_dead_read(tm_tx *tx, void *dst, const void *src, size_t len);
/* Sets tm_tx.dead_lo and dead_len for an outermost attempt (redo-log algorithms' begin). */
TM_HIDDEN void tm_dead_begin(tm_tx *tx);
/* Returns once every speculative attempt running at the call has ended: memory they may still
 * read through a value loaded before (the orec algorithms' lock records) can then be freed. */
TM_HIDDEN void tm_grace_wait(tm_tx *self);
/* htm.c: the serial modes' hardware transactions. */
extern _Atomic bool tm_htm_on TM_HIDDEN;  /* adaptive is in its HTM mode (cm.c) */
extern bool tm_htm_available TM_HIDDEN; /* RTM, and TMKIT_HTM is not off */
/* The serial path's hardware transaction (checkpoint.S's when tm_htm_on, and begin.c's with
 * statistics on): the descriptor set up as for a serial attempt, already counted. */
TM_HIDDEN uint32_t tm_begin_htm(uint32_t prop, tm_tx *tx);
/* The explicit abort codes of the hardware path (xabort's argument), and the status the
 * statistics' hook (hooks.h: stats_htm) gets for a try that committed: _XBEGIN_STARTED. */
#define TM_HTM_LOCKED 0xff   /* the serial lock was held, or readers not excluded */
#define TM_HTM_SOFTWARE 0xfe /* the attempt needs the software path */
#define TM_HTM_CANCEL 0xfd   /* the program cancelled the outermost transaction */
#define TM_HTM_COMMITTED (~0u)
TM_HIDDEN __attribute__((noreturn)) void tm_htm_abort(void);
TM_HIDDEN __attribute__((noreturn)) void tm_htm_cancel(void);
/* What tm_begin_htm needs of a transaction's properties: GCC's uninstrumented code, and either
 * no cancel (checkpoint.S's path) or, for one that may cancel, no irrevocable call in it
 * (begin.c: tm_attempt_start). */
static inline bool tm_htm_can_run(uint32_t prop)
{
    return (prop & pr_uninstrumentedCode) &&
           (prop & (pr_hasNoAbort | pr_hasNoIrrevocable));
}
TM_HIDDEN void tm_htm_commit(tm_tx *tx);
/* txn.c: must a writer under dispatch d quiesce after it commits (TMKIT_PRIVATIZATION)? */
TM_HIDDEN bool tm_quiesce_needed(const struct tm_dispatch *d);

/* faultguard.c: restarts doomed attempts that fault, in place of quiescence. */
extern _Atomic bool tm_guard_active TM_HIDDEN;
TM_HIDDEN void tm_guard_install(void);
TM_HIDDEN void tm_guard_refresh(void);
TM_HIDDEN void tm_serial_fork_prepare(void);
TM_HIDDEN void tm_serial_fork_parent(void);
TM_HIDDEN void tm_serial_fork_child(tm_tx *self);

/* bias.c: the single-thread bias of the serial lock (see the design comment there). */
extern _Atomic uintptr_t tm_bias_owner TM_HIDDEN;

static inline bool tm_bias_try_enter(tm_tx *tx)
{
    if (atomic_load_explicit(&tm_bias_owner, memory_order_relaxed) != (uintptr_t)tx)
        return false; /* always, without membarrier (bias.c) */
    TM_LINES(TM_LK_DESC, &tx->shared_ts);
    atomic_store_explicit(&tx->shared_ts, 0, memory_order_relaxed);
    /* compiler barrier only: a revoking thread's membarrier orders this store before our load
     * below on the hardware side (asymmetric Dekker, bias.c). */
    atomic_signal_fence(memory_order_seq_cst);
    if (TM_UNLIKELY(atomic_load_explicit(&tm_bias_owner, memory_order_seq_cst) != (uintptr_t)tx)) {
        TM_LINES(TM_LK_DESC, &tx->shared_ts);
        atomic_store_explicit(&tx->shared_ts, TM_TS_INACTIVE, memory_order_release);
        return false;
    }
    tx->flags |= TM_F_BIASED;
    return true;
}

static inline void tm_bias_exit(tm_tx *tx)
{
    tx->flags &= ~TM_F_BIASED;
    /* release: the transaction's effects happen-before a revoking thread that sees INACTIVE. */
    TM_LINES(TM_LK_DESC, &tx->shared_ts);
    atomic_store_explicit(&tx->shared_ts, TM_TS_INACTIVE, memory_order_release);
}
/* A serial-lock holder's check after it took the lock: someone else's bias is taken back. */
TM_HIDDEN void tm_bias_revoke(tm_tx *self);
static inline void tm_bias_yield(tm_tx *tx)
{
    /* relaxed: a grant is published by its granter's unlock, which our acquisition of the lock
     * synchronized with; tm_bias_revoke orders the rest. */
    if (TM_UNLIKELY(atomic_load_explicit(&tm_bias_owner, memory_order_relaxed) != 0))
        tm_bias_revoke(tx);
}
/* TMKIT_BIAS=rotate: a serial holder's commit, before its unlock, every TM_BIAS_STREAK commits
 * of a streak (txn fast path: tm_bias_count). */
#define TM_BIAS_STREAK 256u
TM_HIDDEN void tm_bias_grant(tm_tx *self);
/* Nonzero: no grants (adaptive found its serial mode cheaper without them: core/cm_decide.c). */
extern _Atomic uint32_t tm_bias_grants_off TM_HIDDEN;
static inline void tm_bias_count(tm_tx *tx)
{
    if (TM_UNLIKELY(++tx->cm.bias_streak >= TM_BIAS_STREAK))
        tm_bias_grant(tx);
}
/* A biased commit while several threads transact (a rotated bias) counts for adaptive's
 * measurement, which divides an epoch's time by the commits in it: without them, a serial
 * epoch in which one thread ran biased would look dear. It only counts (the decision is left
 * to unbiased commits, tm_cm_count), so the biased thread never takes the serial lock for
 * a decision of its own. */
extern _Atomic uint32_t tm_bias_threads TM_HIDDEN;
static inline void tm_bias_commit_count(tm_tx *tx)
{
    /* relaxed: a hint (bias.c); the count is the thread's own, summed without order (cm.c). */
    if (TM_UNLIKELY(atomic_load_explicit(&tm_bias_threads, memory_order_relaxed) > 1)) {
        tm_count_add1(&tx->cm.commits);
        tm_cm_count_writing(tx);
    }
}
/* A full barrier on every thread of the process (membarrier), for the asymmetric handshakes of
 * ext/; false if there is none. */
TM_HIDDEN bool tm_barrier_all(void);
/* tm_barrier_all will use membarrier (fixed at start-up): the frequent side of an asymmetric
 * handshake needs only a compiler barrier. */
TM_HIDDEN bool tm_barrier_asymmetric(void);
TM_HIDDEN void tm_bias_thread_joined(tm_tx *self);
TM_HIDDEN void tm_bias_thread_left(tm_tx *self);
TM_HIDDEN uint32_t tm_bias_thread_count(void); /* threads with a descriptor (adaptive's choice) */
TM_HIDDEN void tm_bias_fork_child(tm_tx *self);

/* cm.c: contention management of the adaptive algorithm. */
TM_HIDDEN void tm_cm_fork_child(void);
TM_HIDDEN bool tm_cm_run_serial(tm_tx *tx);
TM_HIDDEN const struct tm_dispatch *tm_cm_disp(tm_tx *tx);
TM_HIDDEN bool tm_cm_algo_switched(const tm_tx *tx);
/* adaptive's modes; gl_wt is 0: cm.c's zero-initialized state starts in it. */
enum { TM_CM_GLWT = 0, TM_CM_SERIAL, TM_CM_OREC_EAGER, TM_CM_NOREC, TM_CM_OREC_LAZY, TM_CM_HTM,
       TM_CM_N_MODES };
TM_HIDDEN const char *tm_cm_mode_name(unsigned mode); /* as in the statistics */
TM_HIDDEN bool tm_cm_mode_allowed(unsigned mode);     /* by TMKIT_ADAPTIVE_MODES */
TM_HIDDEN uint64_t tm_cm_epochs(unsigned mode); /* epochs adaptive spent in a mode */
TM_HIDDEN uint64_t tm_cm_probes(unsigned mode); /* probes adaptive made of a mode */
TM_HIDDEN uint64_t tm_cm_cost(unsigned mode);   /* its last TSC cycles per commit (0: none) */
TM_HIDDEN uint64_t tm_cm_cost_writing(unsigned mode); /* per writing commit (0: none) */
TM_HIDDEN uint64_t tm_cm_switches(void);        /* changes of mode */
TM_HIDDEN uint64_t tm_cm_grant_trials(void);    /* serial epochs run with the bias grants flipped */
TM_HIDDEN uint64_t tm_cm_grants_off_epochs(void); /* serial epochs run without bias grants */
TM_HIDDEN uint64_t tm_cm_plain_trials(void);    /* serial epochs run with the plain lock flipped */
TM_HIDDEN uint64_t tm_cm_plain_epochs(void);    /* serial epochs run with the plain lock */
TM_HIDDEN uint64_t tm_cm_quick_restarts(void);  /* restarts without back-off (txn.c) */
TM_HIDDEN uint64_t tm_cm_fair_claims(void);     /* turns claimed (fair.c) */
TM_HIDDEN uint64_t tm_cm_fair_waits(void);      /* begins that waited for a claim (fair.c) */

/* begin.c */
TM_HIDDEN uint32_t tm_attempt_start(tm_tx *tx); /* a new attempt's execution mode */
/* A serial start whose attempt the statistics counted before the lock (stats/stats_begin.c). */
TM_HIDDEN uint32_t tm_begin_serial_counted(uint32_t prop, tm_tx *tx);

/* txn.c */
TM_HIDDEN __attribute__((noreturn)) void tm_restart(tm_tx *tx, tm_abort_reason why);
TM_HIDDEN void tm_go_irrevocable(tm_tx *tx, uintptr_t caller_frame, uintptr_t caller_pc);
TM_HIDDEN void tm_commit(tm_tx *tx, uintptr_t caller_frame);
TM_HIDDEN void tm_commit_finish(tm_tx *tx, bool managed); /* after the release (txn.c) */
TM_HIDDEN void tm_commit_reader(tm_tx *tx); /* a speculative one, outermost (txn.c) */
TM_HIDDEN __attribute__((noreturn)) void tm_cancel(tm_tx *tx, uint32_t reason);
/* The rest of a cancel that the hardware rolled back (htm.c: TM_HTM_CANCEL); returns the bits
 * the outermost begin returns. */
TM_HIDDEN uint32_t tm_cancel_htm_done(tm_tx *tx);
TM_HIDDEN void tm_action_add(tm_tx *tx, uint32_t kind, void (*fn)(void *, uintptr_t), void *arg,
                             uintptr_t aux);
/* tm_action_add (which stops with a message when the list cannot grow) for callers that hold
 * nothing a restart would leak: TM_ROOM_TRY leaves the list as it was and returns false
 * (transactional malloc: the program sees NULL, abi/alloc.c), TM_ROOM_LOG handles it as a
 * log's growth (tm_log_grow: transactional free). */
typedef enum { TM_ROOM_FATAL, TM_ROOM_TRY, TM_ROOM_LOG } tm_room;
TM_HIDDEN bool tm_action_add_room(tm_tx *tx, tm_room mode, uint32_t kind,
                                  void (*fn)(void *, uintptr_t), void *arg, uintptr_t aux);
TM_HIDDEN bool tm_action_forget(tm_tx *tx, uint32_t kind, void *arg);

/* The commit of an attempt the statistics counted whole outside a batch (their hook
 * stats_attempt_whole, or abi/checkpoint.S, left tm_tx.stats_pending pointing at the site's
 * counter): the count its start left pending, made when the commit returns so that a process
 * killed inside the attempt does not count it (the commit fast paths of abi/entry.c, htm.c and
 * tm_commit_finish). The counters are written only by this thread, and plain 64-bit
 * increments cannot tear on x86-64 (their readers: stats/shm.h). */
static inline void tm_commit_count_pending(tm_tx *tx)
{
    uint64_t *p = tx->stats_pending;
    if (p) {
        ++*p;
        tx->stats_pending = NULL;
    }
}

/* The end every commit fast path shares (biased, serial and hardware: abi/entry.c, htm.c):
 * the attempt's pending count, then the descriptor back to "no transaction" (the caller clears
 * the flags where its own protocol puts it). */
static inline __attribute__((always_inline)) void tm_commit_fast_reset(tm_tx *tx)
{
    tm_commit_count_pending(tx);
    tx->nesting = 0;
    tx->n_cps = 0;
}

/* longjmp.S: resumes at a checkpoint that abi/checkpoint.S (or tm_begin) saved */
TM_HIDDEN __attribute__((noreturn)) void tm_longjmp(const tm_jmpbuf *jb, uint32_t actions);

/* util.c */
TM_HIDDEN __attribute__((noreturn, format(printf, 1, 2))) void tm_fatal(const char *fmt, ...);
TM_HIDDEN void *tm_xrealloc(void *p, size_t n, const char *what);
/* realloc for the logs of a running attempt: when it fails, a speculative attempt that can
 * run without logs restarts serial-irrevocable, anything else stops with a message (util.c).
 * The caller's log must be unchanged until it returns: it may not return. */
TM_HIDDEN void *tm_log_grow(void *p, size_t n, const char *what);
TM_HIDDEN void tm_cpu_relax(unsigned iteration);
/* The time stamp counter: what the waits' statistics and adaptive's epochs measure in. */
static inline uint64_t tm_tsc(void) { return __builtin_ia32_rdtsc(); }

/* Fairness between threads that restart without back-off (fair.c): a gl_wt attempt that has
 * restarted TM_FAIR_RETRIES times so claims a turn of at most TM_FAIR_MAX_WAIT TSC cycles
 * (~200 us), which the others' next begins wait for (tm_fair_begin, in gl_wt's begin). */
#define TM_FAIR_RETRIES 8u
#define TM_FAIR_MAX_WAIT (1ull << 19)
extern tm_line64 tm_fair_line TM_HIDDEN;
TM_HIDDEN void tm_fair_claim(tm_tx *tx);
TM_HIDDEN void tm_fair_release(tm_tx *tx);
TM_HIDDEN void tm_fair_wait(tm_tx *tx, uint64_t until);
/* Would a claim by an attempt of dispatch d hold any begin back (only then is one made)? */
TM_HIDDEN bool tm_fair_applies(const struct tm_dispatch *d);
/* At a begin: a first attempt waits while another thread's claim stands, and withdraws a claim
 * of its own that outlived its transaction (a cancel). relaxed: a hint (fair.c). */
static inline void tm_fair_begin(tm_tx *tx)
{
    if (TM_UNLIKELY(tx->cm.fair_claim != 0)) {
        if (tx->retries == 0)
            tm_fair_release(tx);
        return;
    }
    uint64_t until = atomic_load_explicit(&tm_fair_line.w, memory_order_relaxed);
    if (TM_UNLIKELY(until != 0) && tx->retries == 0)
        tm_fair_wait(tx, until);
}
/* At a commit, or a restart that goes serial: our claim, if any, is over. */
static inline void tm_fair_end(tm_tx *tx)
{
    if (TM_UNLIKELY(tx->cm.fair_claim != 0))
        tm_fair_release(tx);
}

/* C++ exception state (abi/eh.c; its rollback is a hook, hooks.h): a new attempt has not saved
 * the count of uncaught exceptions yet. */
static inline void tm_eh_begin(tm_tx *tx) { tx->eh_saved = false; }

#endif

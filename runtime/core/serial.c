/* The serial lock, privatization quiescence.
 *
 * A reader-writer lock built so that readers (speculative transactions) never write a shared
 * cache line: each reader publishes "active" in its own descriptor (shared_ts != INACTIVE) and
 * then checks the writer word; the writer sets the writer word and then waits until every other
 * descriptor is inactive. This is the Dekker pattern: both sides store, fence (seq_cst), then load
 * the other side's variable, so at least one of them sees the other.
 *
 * The writer word is also a futex mutex (0 free, 1 held, 2 held with waiters; 3 and 4 are the
 * hand-off's, serial_fast.h) that serializes writers: a contended writer first spins and asks
 * the holder to hand the lock over (serial_handoff.c), then waits passively in timed sleeps the
 * holder never has to end (serial_wait.c), and registers as a waiter, whom an unlock wakes as
 * glibc's mutex does, only if neither phase (~1 ms) got it the lock. Readers sleep during long
 * irrevocable sections on a second futex word, a generation the unlock bumps when a reader has
 * said it sleeps (tm_serial_rwait): waking every waiter on the writer word instead made each
 * hand-off wake all waiting writers, most of which went back to sleep (serialirr at 4 threads
 * on 2 cores ran at 0.25x the mutex, 2026-11-22).
 *
 * Reader exclusion (adaptive's serial mode): while tm_serial_excl is set no reader can run, so
 * a writer need not drain. The flag changes only under the lock; setting it follows a drain, and
 * a reader checks it after the writer word, so one that announced before the drain was waited
 * for and one that announced after it sees the flag and runs serially instead. A writer that
 * skips the drain holds the lock, under which the flag cannot be cleared. This takes the
 * registry walk (one line per thread) off every serial transaction while adaptive runs
 * serially, where it would otherwise grow with the thread count. The serial algorithms
 * (serialirr) have no readers at all, so they exclude them for the life of the process
 * (tm_serial_init): their transactions take the same fast paths as adaptive's serial mode.
 *
 * Quiescence (privatization safety): after a writer commits at time ts, it waits until each other
 * speculative transaction has either finished or validated at a time >= ts (its shared_ts), so no
 * transaction that could still see the old state touches memory the committer made private.
 *
 * The layers above: the statistics learn the waits' cycles through hooks (hooks.h); ext/ sets
 * bits of tm_serial_rwait (serial_fast.h) and counts its sleepers in tm_wait_sleepers (hooks.h),
 * which the lock reads; ext/atomic_orec.c sets tm_orec_atomics_line, defined here.
 */
#define _GNU_SOURCE
#include <limits.h>

#include "config.h"
#include "hooks.h"
#include "serial_fast.h"
#include "sys.h"

/* Alone on its line (tm_line32): it moves to the CPU of every contended lock and unlock, while
 * the flags below and the registry head are read by every begin and unlock. Sharing their line,
 * each unlock's load of tm_serial_rwait missed whenever a waiter had just pulled the line away
 * (perf, writes-64 at 4 threads on 2 cores: 85% of tm_serial_wake's samples). */
tm_serial_lock_line tm_serial_line;
_Atomic uint32_t tm_serial_rwait;        /* bit TM_RWAIT_READER: a reader sleeps (or is about to) on
                                         * tm_serial_rgen; the other bits: serial_fast.h */
static _Atomic uint32_t tm_serial_rgen;  /* bumped by an unlock that saw tm_serial_rwait */
_Atomic uint32_t tm_serial_excl; /* readers excluded (see above); written under the lock */
tm_line32 tm_orec_atomics_line;  /* set by ext/atomic_orec.c, read here (serial_fast.h) and by
                                  * the orec algorithms (algo/orec.h: tm_orec_atomics) */
static bool tm_fork_took_lock;

/* Sleeps until no writer holds the lock. */
static void tm_serial_wait_free(void)
{
    for (;;) {
        /* The generation is read before the flag is raised: an unlock that consumes the flag
         * bumps it afterwards, so the futex wait below cannot sleep through that unlock. */
        uint32_t gen = atomic_load_explicit(&tm_serial_rgen, memory_order_seq_cst);
        /* seq_cst store then seq_cst load, against the unlock's seq_cst exchange of the word
         * then load of the flag: either we see the word free or the unlock sees the flag.
         * The load is also the acquire that pairs with the unlock, so the irrevocable
         * transaction's effects are visible to the reader that starts after it. */
        TM_LINES(TM_LK_SERIAL_WAIT, &tm_serial_rwait);
        atomic_fetch_or_explicit(&tm_serial_rwait, TM_RWAIT_READER, memory_order_seq_cst);
        if (atomic_load_explicit(&tm_serial_word, memory_order_seq_cst) == 0)
            return;
        tm_futex_wait(&tm_serial_rgen, gen);
    }
}

bool tm_reader_enter(tm_tx *tx)
{
    for (;;) {
        int r = tm_reader_try_enter(tx); /* serial_fast.h: the protocol and its orders */
        if (TM_LIKELY(r > 0))
            return true;
        if (r == 0)
            return false; /* readers excluded: run serially */
        uint64_t w0 = TM_UNLIKELY(tm_stats_on) ? tm_tsc() : 0;
        tm_serial_wait_free();
        if (w0)
            tm_hooks.stats_serial_wait(tx, tm_tsc() - w0);
    }
}

/* Waits until every other descriptor is inactive. Returns the TSC cycles spent waiting when
 * statistics are on and it had to wait (the TSC is read only then: ~20 ns a read in some VMs,
 * which an uncontended serial transaction must not pay), else 0. */
static uint64_t tm_serial_drain(tm_tx *self)
{
    uint64_t w0 = 0;
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_acquire)) {
        if (t == self)
            continue;
        TM_LINES(TM_LK_QREAD, &t->shared_ts);
        /* seq_cst: writer half of the Dekker pattern (see tm_reader_enter; a tmkit.h atomic on
         * the orecs is a reader too, marked in atomic_busy: ext/atomic_orec.c). */
        for (unsigned i = 0; atomic_load_explicit(&t->shared_ts, memory_order_seq_cst) != TM_TS_INACTIVE ||
                             atomic_load_explicit(&t->atomic_busy, memory_order_seq_cst); i++) {
            if (TM_UNLIKELY(tm_stats_on) && !w0)
                w0 = tm_tsc();
            tm_cpu_relax(i);
        }
    }
    return w0 ? tm_tsc() - w0 : 0;
}

/* Readers are excluded (adaptive's serial mode, the serial algorithms), so a holder need not
 * drain them; but tmkit.h's atomics may still run on the orecs as readers of the lock
 * (ext/atomic_orec.c) once tm_orec_atomics is set: wait for those. */
void tm_serial_drain_atomics(tm_tx *self)
{
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_acquire))
        /* seq_cst: writer half of the Dekker pattern with tm_atomic_orec_enter. */
        for (unsigned i = 0; t != self && atomic_load_explicit(&t->atomic_busy, memory_order_seq_cst); i++)
            tm_cpu_relax(i);
}

static bool tm_serial_trylock(void)
{
    uint32_t expected = 0;
    /* seq_cst: this store is the writer's announcement in the Dekker pattern. */
    TM_LINES(TM_LK_SERIAL, &tm_serial_word);
    return atomic_compare_exchange_strong_explicit(&tm_serial_word, &expected, 1,
                                                   memory_order_seq_cst, memory_order_relaxed);
}

/* Returns the TSC cycles spent waiting, when statistics are on and the lock was contended. */
static uint64_t tm_serial_lock(tm_tx *tx)
{
    if (tm_serial_trylock())
        return 0;
    if (tx) {
        tx->cm.bias_streak = 0; /* contended: no bias for this thread yet (bias.c) */
        tx->cm.turn_asked = 0;  /* our turn is over (serial_handoff.c) */
        tx->cm.ro_hist = 0;
    }
    uint64_t w0 = TM_UNLIKELY(tm_stats_on) ? tm_tsc() : 0;
    /* Contended: first spin and ask the holder for the lock (serial_handoff.c); if that takes
     * too long, or there is no spare CPU to spin on, wait passively (serial_wait.c: timed
     * sleeps the holder never has to end); then mark waiters (2) and sleep until an unlock
     * wakes us, as glibc's default mutex does. seq_cst for the same reason as the trylock. */
    /* TMKIT_SERIAL_WAIT; and not while threads sleep in tm_retry/tm_cond_wait (hooks.h:
     * tm_wait_sleepers). relaxed: a hint. */
    bool passive = tm_config.serial_wait == TM_SERIAL_WAIT_SLEEP &&
                   !atomic_load_explicit(&tm_wait_sleepers, memory_order_relaxed);
    if (!passive ||
        !(tm_serial_spin_wait(tm_serial_trylock) || tm_serial_poll_wait(tm_serial_trylock))) {
        /* An exchange that finds the lock handed to a spinner (TM_SERIAL_HANDED) takes it:
         * it is free; the spinner then sees 2 and waits passively. */
        uint32_t o;
        while (TM_LINES(TM_LK_SERIAL, &tm_serial_word),
               (o = atomic_exchange_explicit(&tm_serial_word, 2, memory_order_seq_cst)) != 0 &&
               o != TM_SERIAL_HANDED)
            tm_futex_wait(&tm_serial_word, 2);
    }
    return w0 ? tm_tsc() - w0 : 0;
}

/* The lock is held (tm_serial_trylock_fast): drain unless readers are excluded. */
void tm_serial_locked(tm_tx *tx)
{
    /* relaxed: as in tm_serial_acquire. */
    if (!atomic_load_explicit(&tm_serial_excl, memory_order_relaxed))
        (void)tm_serial_drain(tx);
    else if (tm_serial_atomics())
        tm_serial_drain_atomics(tx);
    tm_bias_yield(tx);
    tx->flags |= TM_F_SERIAL;
}

/* Waiting for the lock or for the drain counts as cycles_serial_wait of the next attempt. */
void tm_serial_acquire(tm_tx *tx)
{
    if (tx->flags & TM_F_READER)
        tm_reader_exit(tx);
    uint64_t waited = tm_serial_lock(tx);
    /* relaxed: written only by lock holders, ordered before us by the lock's acquisition. */
    if (!atomic_load_explicit(&tm_serial_excl, memory_order_relaxed))
        waited += tm_serial_drain(tx);
    else if (tm_serial_atomics())
        tm_serial_drain_atomics(tx);
    tm_bias_yield(tx);
    tx->flags |= TM_F_SERIAL;
    if (waited)
        tm_hooks.stats_serial_wait(tx, waited);
}

/* Called by the lock holder after tm_serial_acquire (which drained unless already excluded). */
void tm_serial_exclude_readers(bool on)
{
    /* relaxed: under the lock; its release orders the store before the next holder and before
     * any reader that sees the word free (tm_reader_enter). */
    TM_LINES(TM_LK_SERIAL, &tm_serial_excl);
    atomic_store_explicit(&tm_serial_excl, on, memory_order_relaxed);
}

bool tm_serial_try_upgrade(tm_tx *tx)
{
    if (!tm_serial_trylock())
        return false;
    /* We stop being a reader only after owning the word, so no other writer could have drained
     * past us while our speculative state was live. */
    tm_reader_exit(tx);
    (void)tm_serial_drain(tx); /* not timed: the attempt goes on */
    tm_bias_yield(tx); /* none while readers run (bias.c); checked as at every acquisition */
    tx->flags |= TM_F_SERIAL;
    return true;
}

/* The slow part of an unlock (tm_serial_unlock_fast): `old` as tm_serial_unlock_nowake gives it. */
void tm_serial_wake(uint64_t old)
{
    if ((uint32_t)old == 2)
        tm_futex_wake(&tm_serial_word, 1);
    else if ((uint32_t)old == 3)
        tm_serial_handoff(tm_cur, (uint32_t)(old >> 32));
    /* The fetch_and consumes the reader flag: a reader raising it later is seen by the next unlock. */
    if ((atomic_load_explicit(&tm_serial_rwait, memory_order_seq_cst) & TM_RWAIT_READER) &&
        (TM_LINES(TM_LK_SERIAL_WAIT, &tm_serial_rwait),
         atomic_fetch_and_explicit(&tm_serial_rwait, ~TM_RWAIT_READER, memory_order_seq_cst) &
         TM_RWAIT_READER)) {
        TM_LINES(TM_LK_SERIAL_WAIT, &tm_serial_rgen);
        atomic_fetch_add_explicit(&tm_serial_rgen, 1, memory_order_seq_cst);
        tm_futex_wake(&tm_serial_rgen, INT_MAX);
    }
}

static void tm_serial_unlock(void) { tm_serial_unlock_fast(); }

void tm_serial_release(tm_tx *tx)
{
    tx->flags &= ~(TM_F_SERIAL | TM_F_IRREVOCABLE);
    tm_serial_unlock();
}

static uint64_t tm_quiesce_from(tm_tx *self, uint64_t ts, tm_tx *start, uint64_t only,
                                bool by_attempts, uint64_t *w0);
static void tm_quiesce_record(tm_tx *self, uint64_t w0);

void tm_quiesce(tm_tx *self, uint64_t ts, void (*publish)(uint64_t ts))
{
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_acquire))
        /* acquire: as in tm_quiesce_one. */
        if (t != self && (TM_LINES(TM_LK_QREAD, &t->shared_ts),
                          atomic_load_explicit(&t->shared_ts, memory_order_acquire) < ts)) {
            if (publish)
                publish(ts);
            /* from t on: the ones before it were past ts, and a transaction one of them began
             * since is no older than ts (published) or sees our writes */
            uint64_t w0 = 0;
            tm_quiesce_from(self, ts, t, ~0ull, false, &w0);
            tm_quiesce_record(self, w0);
            return;
        }
}

/* Waits until descriptor t is past ts or finished (with `by_attempts`, or has begun another
 * attempt since we looked: tm_quiesce_ended). Adds t's qbit to *busy if t was inside a
 * transaction when we looked; *w0 times the waits. False: adaptive changed algorithm, stop. */
static bool tm_quiesce_one(tm_tx *self, tm_tx *t, uint64_t ts, bool by_attempts, uint64_t *w0,
                           uint64_t *busy)
{
    TM_LINES(TM_LK_QREAD, &t->shared_ts);
    /* acquire: pairs with the release stores of shared_ts (validation, reader exit), so once we
     * pass, that transaction no longer uses pre-ts state. The count is loaded before shared_ts,
     * so an attempt begun between the two loads shows as a changed count. */
    uint64_t n0 = by_attempts ? atomic_load_explicit(&t->attempts, memory_order_acquire) : 0;
    /* relaxed: a hint for the caller (which readers' bits to keep), no order needed. An
     * inactive t does not enter the wait below (TM_TS_INACTIVE is above every ts), nor does one
     * that began an attempt since (its count moved). */
    if (atomic_load_explicit(&t->shared_ts, memory_order_relaxed) != TM_TS_INACTIVE)
        *busy |= t->qbit;
    for (unsigned i = 0; atomic_load_explicit(&t->shared_ts, memory_order_acquire) < ts &&
                         (!by_attempts ||
                          atomic_load_explicit(&t->attempts, memory_order_acquire) == n0);
         i++) {
        if (TM_UNLIKELY(tm_stats_on) && !*w0)
            *w0 = tm_tsc();
        /* adaptive changed algorithm: its drain already waited for every transaction that
         * started before our commit, and later ones see our writes (core/cm.c). */
        if (tm_cm_algo_switched(self))
            return false;
        tm_cpu_relax(i);
    }
    return true;
}

/* tm_quiesce from registry entry `start` on: every earlier one is past ts or finished. Only
 * descriptors whose qbit is in `only`; *w0 as in tm_quiesce_one (the caller records the wait,
 * once). Returns the qbits of the descriptors that were inside a transaction when we looked
 * (all of `only` if the walk stopped early). */
static uint64_t tm_quiesce_from(tm_tx *self, uint64_t ts, tm_tx *start, uint64_t only,
                                bool by_attempts, uint64_t *w0)
{
    uint64_t busy = 0;
    for (tm_tx *t = start; t; t = atomic_load_explicit(&t->next, memory_order_acquire))
        if (t != self && (t->qbit & only) &&
            !tm_quiesce_one(self, t, ts, by_attempts, w0, &busy))
            return only;
    return busy;
}

/* The quiescence wait's cycles, if some transaction made us wait (w0: when it began). */
static void tm_quiesce_record(tm_tx *self, uint64_t w0)
{
    if (w0)
        tm_hooks.stats_quiesce_wait(self, tm_tsc() - w0);
}

/* Quiescence by attempts, for orec_eager: its commit times run ahead of its clock, which only a
 * transaction that meets a newer version raises, so the snapshots of transactions that begin
 * after our commit may stay below its time for ever. Instead, wait until each transaction that
 * was running when we committed has ended: its descriptor is inactive, past ts anyway, or has
 * begun another attempt. The fence makes our commit's releases visible before we read the
 * others' counts, so an attempt whose begin we have not seen yet (its count's store, which its
 * seq_cst store of shared_ts orders before its loads, comes after our reads) sees our writes:
 * it cannot have read their old values. Writes nothing shared: the earlier form raised the
 * clock to ts before its first wait, one compare-and-swap on the clock's line per commit while
 * any other thread transacted.
 * Only the descriptors whose bits the commit found in its orecs' readers' words
 * (self->oreaders, orec_eager.c: the only attempts it can have doomed); none: no wait, and no
 * line of another descriptor read. Leaves in self->oreaders the bits of those it found outside
 * any transaction, which the commit then clears from its orecs. */
void tm_quiesce_ended(tm_tx *self, uint64_t ts)
{
    uint64_t want = self->oreaders, busy = 0, w0 = 0;
    if (!want)
        return;
    atomic_thread_fence(memory_order_seq_cst);
    /* Bits 1..63 name one descriptor each: O(readers found), not O(threads) lines read. */
    for (uint64_t m = want & ~1ull; m; m &= m - 1) {
        /* acquire: the descriptor was initialised before its owner could set its bit */
        tm_tx *t = atomic_load_explicit(&tm_desc_by_bit[__builtin_ctzll(m)], memory_order_acquire);
        if (t && t != self && !tm_quiesce_one(self, t, ts, true, &w0, &busy)) {
            busy = want;
            goto done;
        }
    }
    if (want & 1) /* bit 0: the descriptors without a bit of their own */
        busy |= tm_quiesce_from(self, ts, tm_registry_head(), 1, true, &w0);
done:
    tm_quiesce_record(self, w0);
    self->oreaders &= ~busy;
}

/* Like tm_quiesce_ended at the end of time, without its early exit at an algorithm switch (a
 * drain covers the attempts begun before the switch, not those begun since and still holding
 * what they loaded). Rare: a thread's exit after its records were named (algo/orec.h). The
 * fence orders our earlier releases before the loads below, so an attempt we do not see as
 * running begins after them and cannot load an orec value naming what we free. */
void tm_grace_wait(tm_tx *self)
{
    atomic_thread_fence(memory_order_seq_cst);
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_acquire)) {
        if (t == self)
            continue;
        /* acquire: as in tm_quiesce_one; an attempt's end (or a new one) ends its reads. */
        uint64_t n0 = atomic_load_explicit(&t->attempts, memory_order_acquire);
        for (unsigned i = 0; atomic_load_explicit(&t->shared_ts, memory_order_acquire) != TM_TS_INACTIVE &&
                             atomic_load_explicit(&t->attempts, memory_order_acquire) == n0;
             i++)
            tm_cpu_relax(i);
    }
}

/* A serial algorithm never lets a transaction run as a reader (core/begin.c), so readers are
 * excluded from the start and no serial transaction walks the registry to drain them: serialirr
 * on a shared counter at 2 threads cost 166 instructions per operation with the drain and the
 * general begin, 324 with statistics on (callgrind, 2026-11-23). After tm_config_init
 * (TM_INIT_CONFIG, hooks.h), before any thread can transact; relaxed like every other store of
 * the flag (there is no other thread yet). */
__attribute__((constructor(TM_INIT_CORE))) static void tm_serial_init(void)
{
    if (tm_config.algo->serial)
        atomic_store_explicit(&tm_serial_excl, 1, memory_order_relaxed);
}

void tm_serial_fork_prepare(void)
{
    tm_tx *tx = tm_cur;
    tm_fork_took_lock = false;
    if (tx && tx->nesting)
        return; /* fork inside a transaction: it is irrevocable and already holds the lock */
    (void)tm_serial_lock(tx);
    (void)tm_serial_drain(tx); /* tx may be NULL: then nothing is skipped */
    /* Another thread's bias too (ours stays: we are outside any transaction). relaxed: as in
     * tm_bias_yield. */
    uintptr_t o = atomic_load_explicit(&tm_bias_owner, memory_order_relaxed);
    if (o && o != (uintptr_t)tx)
        tm_bias_revoke(tx);
    tm_fork_took_lock = true;
}

void tm_serial_fork_parent(void)
{
    if (tm_fork_took_lock) {
        tm_fork_took_lock = false;
        tm_serial_unlock();
    }
}

void tm_serial_fork_child(tm_tx *self)
{
    /* The lock stays held only by a child forked from inside a serial transaction (it is that
     * transaction's thread); otherwise its holder does not exist here. No waiter exists either. */
    if (tm_fork_took_lock || !(self && (self->flags & TM_F_SERIAL)))
        atomic_store_explicit(&tm_serial_word, 0, memory_order_relaxed);
    atomic_fetch_and_explicit(&tm_serial_rwait, TM_RWAIT_FENCE, memory_order_relaxed);
    tm_fork_took_lock = false;
}

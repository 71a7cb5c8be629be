/* The ownership-record table and global clock shared by orec_lazy and orec_eager.
 * An unlocked orec holds (version << TM_OREC_SLOT_BITS | slot): the commit time of the last
 * writer of its words and, for orec_eager's releases, the writer's slot (0: none, see
 * tm_eager_slot_ok). A locked one has bit 63 set; the rest is the owner (each algorithm
 * documents which). So one unsigned compare with tm_orec_bound(snapshot) tells "unlocked and
 * no newer than the snapshot", the common case of every read and lock. */
#ifndef TMKIT_ALGO_OREC_H
#define TMKIT_ALGO_OREC_H

#include <string.h>

#include "../core/serial_fast.h"
#include "../core/tx.h"
#include "fast.h"

#define TM_OREC_BITS 18
/* Each orec covers an aligned block of 2^TM_OREC_SHIFT bytes: 8, one word. Blocks of 32 bytes
 * (TinySTM's default mapping; its authors tune the shift per workload in "Dynamic Performance
 * Tuning of Word-Based Software Transactional Memory", PPoPP 2008) give a structure's fields one
 * orec, so fewer read-log entries and validations: orec_eager ran the 64K-node tree 1.32-1.41x
 * and the 256K hash set 1.38x faster at 1 thread. But words that nothing relates then conflict:
 * a list's hot head and tail beside the read-only pointer to its hash table (.bss neighbours)
 * made the LRU cache 0.58x at 2 threads, and over the suite orec_eager gained 6% at 1 thread and
 * 3% at 2, the default nothing (bench/results/orec-granularity; 16 bytes: docs/algorithms.md).
 * A build for experiments may set another size (-DTM_OREC_SHIFT=5:
 * bench/scripts/orec_granularity.sh); it exports no inline data, so code the plugin inlined
 * always calls there. */
#ifndef TM_OREC_SHIFT
#define TM_OREC_SHIFT 3
#endif
/* TM_OREC_SLOT_BITS and TM_OREC_SLOTS: core/tx.h (the descriptor's slot) */
#define TM_OREC_SLOT_MASK ((uint64_t)TM_OREC_SLOTS - 1)
#define TM_OREC_LOCK (1ull << 63)

/* The table holds a pair of words per orec, on one cache line: the orec's value, then its
 * readers' word (orec_eager's selective quiescence: bit k is set by a reader whose descriptor has
 * obit 1 << k, and cleared by a committing writer that waits for that reader; orec_eager.c). */
extern _Atomic uint64_t tm_orecs[2u << TM_OREC_BITS] TM_HIDDEN;
extern tm_line64 tm_orec_clock_line TM_HIDDEN; /* alone on its cache line */
#define tm_orec_clock (tm_orec_clock_line.w)

/* Set once, when tmkit.h's atomics first run on the orecs outside a transaction
 * (ext/atomic_orec.c). Such an operation gives its word's orec a version newer than the clock
 * without taking a time, so that atomics on different words write no shared line (GV5 in
 * TL2's terms: the first transaction that meets such a version raises the clock to it, see
 * tm_orec_extend). Then "nobody took a time since my snapshot" no longer proves a read log
 * valid, and writer commits validate whenever the flag is set. Read-mostly, alone on its line;
 * core's, since the serial lock reads it too (core/serial_fast.h: tm_orec_atomics_line). */
#define tm_orec_atomics (tm_orec_atomics_line.w)

/* May a writer that took time wv skip validating its read log (TL2)? */
static inline bool tm_orec_skip_ok(const tm_tx *tx, uint64_t wv)
{
    /* relaxed: the flag is published with a membarrier before the first such atomic runs
     * (ext/atomic_orec.c), so a commit that loads 0 here linearizes before that atomic. */
    return wv == tx->snapshot + 1 && !atomic_load_explicit(&tm_orec_atomics, memory_order_relaxed);
}

/* Raises the clock to at least v; returns the clock's value then (>= v). */
static inline uint64_t tm_orec_raise(uint64_t v)
{
    /* acquire: as the snapshot's load in tm_orec_begin; release on success: nothing to publish,
     * but a raise must not be reordered before the orec load that asked for it. */
    uint64_t now = atomic_load_explicit(&tm_orec_clock, memory_order_acquire);
    while (now < v && (TM_LINES(TM_LK_CLOCK, &tm_orec_clock),
                       !atomic_compare_exchange_weak_explicit(&tm_orec_clock, &now, v,
                                                             memory_order_acq_rel,
                                                             memory_order_acquire))) {
    }
    return now < v ? v : now;
}

/* A new time strictly after both the clock and `floor` (a writer that locked an orec whose
 * version an atomic set ahead of the clock: its versions must keep growing). */
static inline uint64_t tm_orec_time_after(uint64_t floor)
{
    uint64_t now = atomic_load_explicit(&tm_orec_clock, memory_order_acquire), next;
    do
        next = (now > floor ? now : floor) + 1;
    /* acq_rel: as the commit's fetch_add it replaces. */
    while (TM_LINES(TM_LK_CLOCK, &tm_orec_clock),
           !atomic_compare_exchange_weak_explicit(&tm_orec_clock, &now, next, memory_order_acq_rel,
                                                  memory_order_acquire));
    return next;
}

static inline _Atomic uint64_t *tm_orec_of(uintptr_t addr)
{
    return &tm_orecs[((addr >> TM_OREC_SHIFT) & ((1u << TM_OREC_BITS) - 1)) * 2];
}

/* The readers' word of orec o (see tm_orecs). */
static inline _Atomic uint64_t *tm_orec_readers(_Atomic uint64_t *o) { return o + 1; }

/* The number of orec o, 0 .. 2^TM_OREC_BITS - 1 (ext/: waiters' filters). */
static inline uintptr_t tm_orec_index(const _Atomic uint64_t *o)
{
    return (uintptr_t)(o - tm_orecs) / 2;
}

static inline bool tm_orec_locked(uint64_t v) { return v & TM_OREC_LOCK; }
/* The value of an orec locked by `owner` (user-space addresses leave bit 63 clear), and back. */
static inline uint64_t tm_orec_lock_of(const void *owner) { return (uintptr_t)owner | TM_OREC_LOCK; }
static inline void *tm_orec_owner(uint64_t v) { return (void *)(uintptr_t)(v & ~TM_OREC_LOCK); }
/* An unlocked orec's value. */
static inline uint64_t tm_orec_unlocked(uint64_t version, uint64_t slot)
{
    return version << TM_OREC_SLOT_BITS | slot;
}
/* The largest orec value a snapshot accepts: any slot, no lock, version <= snapshot. */
static inline uint64_t tm_orec_bound(uint64_t snapshot)
{
    return snapshot << TM_OREC_SLOT_BITS | TM_OREC_SLOT_MASK;
}

/* The orecs a transaction has locked, in tx->algo_state: one type for both orec algorithms,
 * which adaptive may run one after the other in the same thread (each resets `n` before use; a
 * switch of algorithm drains every transaction, so none holds a lock across it). orec_lazy's
 * locked orecs point at their record (owner: who holds it); orec_eager's hold the descriptor
 * (tm_orec_lock_of(tx)) and leave the record's owner unset. The
 * records follow the header in one block.
 * Records named by an orec (orec_lazy's commits, ext/atomic_orec.c) are read by other threads'
 * attempts through the orec value they loaded, possibly after we released the orec: such a
 * block is never freed while attempts may hold such a value. A growth keeps the old block on
 * the `retired` chain, and tm_locks_free frees the chain after a grace period. */
typedef struct tm_lockrec {
    tm_tx *owner;
    uint64_t old; /* the orec value the lock replaced (orec_lazy restores it; orec_eager
                   * releases with a new time and leaves it unset) */
    _Atomic uint64_t *orec;
} tm_lockrec;

typedef struct tm_locks {
    size_t n, cap;
    uint64_t version; /* a commit's time, between its commit and its `published` (tx.h) */
    struct tm_locks *retired; /* blocks replaced by growth, kept while `named` (above) */
    bool named;               /* an orec has held a value naming one of our records */
    tm_lockrec rec[];
} tm_locks;

/* The slow part of tm_locks_reserve (orec_locks.c). */
TM_HIDDEN tm_locks *tm_locks_grow(tm_tx *tx, size_t want);
/* Allocates a descriptor's first lock records when a thread takes it, outside any transaction
 * (orec_locks.c; core's hook algo_state_init, algo_hooks.c). */
TM_HIDDEN void tm_locks_init(tm_tx *tx);
/* Frees the thread's lock records when its descriptor goes back to the pool (orec_locks.c;
 * core's hook algo_state_free, algo_hooks.c). */
TM_HIDDEN void tm_locks_free(tm_tx *tx);
/* Maps the whole orec table in one call, once (orec_locks.c; adaptive's decider, through the
 * dispatch tables' prepare). */
TM_HIDDEN void tm_orecs_populate(void);

/* The thread's lock records with room for `want` (never moved while orecs point into it:
 * orec_lazy reserves before it locks anything). */
static inline tm_locks *tm_locks_reserve(tm_tx *tx, size_t want)
{
    tm_locks *l = tx->algo_state;
    if (TM_UNLIKELY(!l || l->cap < want))
        l = tm_locks_grow(tx, want);
    return l;
}

/* The version of an unlocked orec. */
static inline uint64_t tm_orec_version(uint64_t v) { return v >> TM_OREC_SLOT_BITS; }

/* Starts an attempt at the current clock and publishes the snapshot for quiescence. */
static inline void tm_orec_begin(tm_tx *tx)
{
    /* acquire: versions <= this time were published by commits we now see. */
    tx->snapshot = atomic_load_explicit(&tm_orec_clock, memory_order_acquire);
    tx->obound = tm_orec_bound(tx->snapshot);
    /* release: pairs with the acquire loads in tm_quiesce. */
    TM_LINES(TM_LK_DESC, &tx->shared_ts);
    atomic_store_explicit(&tx->shared_ts, tx->snapshot, memory_order_release);
}

/* Moves the snapshot to the current clock if `validate` finds every read still valid. `seen` is
 * the version that asked for it: one newer than the clock (an atomic's, see tm_orec_atomics)
 * raises the clock first, so every later commit takes a time after it. */
static inline __attribute__((always_inline)) bool tm_orec_extend(tm_tx *tx, bool (*validate)(tm_tx *),
                                                                 uint64_t seen)
{
    uint64_t now = atomic_load_explicit(&tm_orec_clock, memory_order_acquire);
    if (TM_UNLIKELY(seen > now))
        now = tm_orec_raise(seen);
    if (!validate(tx))
        return false;
    tx->snapshot = now;
    tx->obound = tm_orec_bound(now);
    /* release: pairs with the acquire loads in tm_quiesce. */
    TM_LINES(TM_LK_DESC, &tx->shared_ts);
    atomic_store_explicit(&tx->shared_ts, now, memory_order_release);
    return true;
}

/* A lock a committed writer holds through its privatization wait (txn.c: `published`; the
 * owner's shared_ts reads TM_TS_QUIESCING). A transaction with nothing of its own in memory (no
 * orec locked) may wait for the release instead of aborting, once it has told writers' waits
 * not to wait for it (TM_TS_QUIESCING too): the owner may be waiting for it. That is safe
 * because it runs no program code while it waits, and before it runs any again it validates
 * its read log at a new snapshot: a writer that skipped it meanwhile (a privatizer among them)
 * has changed or still locks what it wrote, so a transaction that read any of that aborts here,
 * before it can use the privatized data. (Without that validation, one whose snapshot was
 * already above the owner's time would retry the read without extending and go on.)
 * Aborting instead, every reader of freshly written data restarted for as long as the wait
 * lasted, which is long when the threads waited for are not running: with 4 threads on 2
 * vCPUs STAMP took 1.5-3x longer under orec_eager and orec_lazy, with 10-100x the
 * read-conflict aborts and many transactions falling back to serial
 * (bench/results/third-party, "Privatization wait"). Returns false if the owner is not in its wait
 * (the caller aborts as before), true once the orec has changed and the log is valid (it
 * restarts the transaction if not). */
static inline bool tm_orec_wait_release(tm_tx *tx, _Atomic uint64_t *o, uint64_t cur,
                                        const tm_tx *owner, bool (*validate)(tm_tx *))
{
    /* acquire: nothing to see through it; a stale value only makes us abort as before. */
    if (atomic_load_explicit(&owner->shared_ts, memory_order_acquire) != TM_TS_QUIESCING)
        return false;
    uint64_t prev = atomic_load_explicit(&tx->shared_ts, memory_order_relaxed);
    /* seq_cst: as a reader's announcement (serial.c): a writer's wait that loads our word after
     * this store skips us; one that loaded it before may still wait for us, until it loads it
     * again (its loop reloads it). */
    TM_LINES(TM_LK_DESC, &tx->shared_ts);
    atomic_store_explicit(&tx->shared_ts, TM_TS_QUIESCING, memory_order_seq_cst);
    /* acquire: the release store that unlocks it publishes the owner's writes. */
    for (unsigned i = 0; atomic_load_explicit(o, memory_order_acquire) == cur; i++)
        tm_cpu_relax(i);
    /* seq_cst, then the validation's loads: a writer that skipped us loaded our word before
     * this store, after its fence (tm_quiesce_ended) or its orec CAS, so the loads below see
     * its locks or the versions it released (the Dekker pattern of serial.c). One that loads
     * it after this store waits for us. */
    TM_LINES(TM_LK_DESC, &tx->shared_ts);
    atomic_store_explicit(&tx->shared_ts, prev, memory_order_seq_cst);
    if (!tm_orec_extend(tx, validate, 0))
        tm_restart(tx, TM_ABORT_READ_CONFLICT);
    return true;
}

/* orec_lazy's read of [addr, addr+len) (len <= 8, within one aligned word) consistent with the
 * snapshot: orec, value, orec again; the orec and its value are logged. (orec_eager reads the
 * value first and the orec once: orec_eager.c.) */
static inline __attribute__((always_inline)) void
tm_orec_read_word(tm_tx *tx, unsigned char *dst, uintptr_t addr, size_t len,
                  bool (*validate)(tm_tx *))
{
    _Atomic uint64_t *o = tm_orec_of(addr);
    for (unsigned spin = 0;; spin++) {
        /* acquire: the value load below sees the data of the version we read here. */
        uint64_t v1 = atomic_load_explicit(o, memory_order_acquire);
        if (tm_orec_locked(v1)) {
            /* orec_lazy's locks name their record; ours are none before our commit. A
             * committer in its privatization wait is waited with at once (orec_eager.c). */
            const tm_lockrec *r = (const tm_lockrec *)tm_orec_owner(v1);
            if ((spin == 0 || spin == 64) && tm_orec_wait_release(tx, o, v1, r->owner, validate)) {
                spin = 0;
                continue;
            }
            if (spin < 64) { /* a committer is writing back: wait briefly */
                __builtin_ia32_pause();
                continue;
            }
            tm_restart(tx, TM_ABORT_READ_CONFLICT);
        }
        memcpy(dst, (const void *)addr, len);
        /* acquire fence: the value load above happens before the orec re-check. */
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(o, memory_order_relaxed) != v1)
            continue;
        /* Log first, then extend: the extension must also validate this word, or a commit to
         * it between our read and the new snapshot would be absorbed unseen. */
        tm_rset_push(&tx->rset, o, &v1, sizeof v1);
        if (tm_orec_version(v1) > tx->snapshot && !tm_orec_extend(tx, validate, tm_orec_version(v1)))
            tm_restart(tx, TM_ABORT_READ_CONFLICT);
        return;
    }
}

/* Inline fast path of orec_lazy's naturally aligned read of 1-8 bytes (the barriers' common
 * case): the word's orec is unlocked and no newer than the snapshot, and the read log has
 * room. Anything else returns false and the caller takes tm_orec_read_word through the
 * dispatch table. Same protocol and memory orders as tm_orec_read_word. */
static inline __attribute__((always_inline)) bool
tm_orec_read_fast(tm_tx *tx, const void *addr, unsigned size, uint64_t *out)
{
    _Atomic uint64_t *o = tm_orec_of((uintptr_t)addr);
    /* acquire: the value load below sees the data of the version read here. */
    uint64_t v1 = atomic_load_explicit(o, memory_order_acquire);
    tm_rset *r = &tx->rset;
    if (TM_UNLIKELY(v1 > tx->obound || r->n == r->cap))
        return false;
    uint64_t v = tm_load_n(addr, size);
    /* acquire fence: the value load happens before the orec re-check. */
    atomic_thread_fence(memory_order_acquire);
    if (TM_UNLIKELY(atomic_load_explicit(o, memory_order_relaxed) != v1))
        return false;
    tm_rentry *e = &r->e[r->n++]; /* the orec and its value, as tm_rset_push logs them */
    e->addr = (uintptr_t)o;
    e->val = v1;
    e->len = 8;
    *out = v;
    return true;
}

/* Reads any range word by word: `word` reads len <= 8 bytes within one aligned word (orec_lazy's
 * wraps tm_orec_read_word, orec_eager's is its own). */
static inline __attribute__((always_inline)) void
tm_orec_read_range(tm_tx *tx, unsigned char *dst, uintptr_t addr, size_t len,
                   void (*word)(tm_tx *, unsigned char *, uintptr_t, size_t))
{
    while (len) {
        size_t n = 8 - (addr & 7) < len ? 8 - (addr & 7) : len;
        word(tx, dst, addr, n);
        addr += n;
        dst += n;
        len -= n;
    }
}

/* ---- orec_eager's fast paths (the protocol: orec_eager.c) ---------------------------------- */

/* An unlocked orec this descriptor released last: its version may be above our snapshot, but
 * its words are what they were when our transaction began (orec_eager.c: the own-slot rule).
 * orec_slot is ~0 for a descriptor without a slot, which no masked orec value equals. */
static inline bool tm_eager_slot_ok(const tm_tx *tx, uint64_t v)
{
    return (v & (TM_OREC_LOCK | TM_OREC_SLOT_MASK)) == tx->orec_slot;
}

/* Is our bit in the readers' word of orec o, whose value we loaded (acquire) as cur, or did we
 * set it while o kept that value (orec_eager.c: selective quiescence)? False: read again. */
static inline bool tm_eager_marked(tm_tx *tx, _Atomic uint64_t *o, uint64_t cur)
{
    _Atomic uint64_t *r = tm_orec_readers(o);
    /* relaxed: after the acquire load of o, which saw the release of the last writer that
     * cleared bits (it clears before it releases), so a bit seen here was set since. */
    if (TM_LIKELY(atomic_load_explicit(r, memory_order_relaxed) & tx->obit))
        return true;
    /* seq_cst, and the orec load after it: a writer that locks o later loads this word after
     * its lock and a seq_cst fence, so either it sees our bit or we see its lock here. */
    TM_LINES(TM_LK_OREC, r);
    atomic_fetch_or_explicit(r, tx->obit, memory_order_seq_cst);
    return atomic_load_explicit(o, memory_order_seq_cst) == cur;
}

/* The value of a naturally aligned word of 1-8 bytes, then its orec (*o, its value *cur): the
 * first half of orec_eager's read fast paths. */
static inline __attribute__((always_inline)) uint64_t
tm_eager_load(const void *addr, unsigned size, _Atomic uint64_t **o, uint64_t *cur)
{
    *o = tm_orec_of((uintptr_t)addr);
    uint64_t v = tm_load_n(addr, size);
    /* acquire fence: the value load happens before the orec load (orec_eager.c); acquire load:
     * the readers' word's load after it (tm_eager_marked). */
    atomic_thread_fence(memory_order_acquire);
    *cur = atomic_load_explicit(*o, memory_order_acquire);
    return v;
}

/* Inline fast path of orec_eager's naturally aligned read of 1-8 bytes: the value, then its orec,
 * which must be no newer than the snapshot (one compare with obound also rules out a lock), ours,
 * or released by this descriptor, and already carry our readers' bit; the read log must have
 * room. Anything else (locked by another, newer: snapshot extension, our bit to set, a log to
 * grow) returns false and the caller takes eager_read through the dispatch table. */
static inline __attribute__((always_inline)) bool
tm_eager_read_fast(tm_tx *tx, const void *addr, unsigned size, uint64_t *out)
{
    _Atomic uint64_t *o;
    uint64_t cur, v = tm_eager_load(addr, size, &o, &cur);
    if (TM_UNLIKELY(cur > tx->obound)) {
        if (cur == tm_orec_lock_of(tx)) { /* our own lock: only we write the word */
            *out = v;
            return true;
        }
        if (!tm_eager_slot_ok(tx, cur))
            return false;
    }
    tm_olog *l = &tx->olog;
    /* relaxed: as in tm_eager_marked */
    if (TM_UNLIKELY(l->cur == l->end ||
                    !(atomic_load_explicit(tm_orec_readers(o), memory_order_relaxed) & tx->obit)))
        return false;
    *l->cur++ = (uintptr_t)o;
    *out = v;
    return true;
}

/* The same read in an unlogged read-only attempt (orec_eager_ro.c): no lock of ours to find,
 * and a count instead of a log entry. Same protocol and memory orders as tm_eager_read_fast. */
static inline __attribute__((always_inline)) bool
tm_eager_ro_read_fast(tm_tx *tx, const void *addr, unsigned size, uint64_t *out)
{
    _Atomic uint64_t *o;
    uint64_t cur, v = tm_eager_load(addr, size, &o, &cur);
    if (TM_UNLIKELY(cur > tx->obound && !tm_eager_slot_ok(tx, cur)))
        return false;
    /* relaxed: as in tm_eager_marked */
    if (TM_UNLIKELY(!(atomic_load_explicit(tm_orec_readers(o), memory_order_relaxed) & tx->obit)))
        return false;
    tx->olog.unlogged++;
    *out = v;
    return true;
}

/* Inline fast path of orec_eager's write of one naturally aligned value of 1-8 bytes: the word's
 * orec is ours already, or lockable (as a read would accept it) with one CAS while the lock
 * records and the undo log have room. Anything else (held by another, newer version: snapshot
 * extension, a lost CAS, a log to grow) returns false and the caller takes eager_write through
 * the dispatch table, which finds the orec ours if this path locked it. Same protocol and memory
 * orders as eager_lock, tm_undo_push and eager_write. */
static inline __attribute__((always_inline)) bool
tm_eager_write_fast(tm_tx *tx, void *addr, uint64_t raw, unsigned size)
{
    _Atomic uint64_t *o = tm_orec_of((uintptr_t)addr);
    uint64_t mine = tm_orec_lock_of(tx);
    /* relaxed: an orec we hold only we change, so this sees our own lock value; any other
     * value is checked again by the CAS below. */
    uint64_t cur = atomic_load_explicit(o, memory_order_relaxed);
    if (cur != mine) {
        tm_locks *l = tx->algo_state; /* allocated by eager_begin */
        if (TM_UNLIKELY((cur > tx->obound && !tm_eager_slot_ok(tx, cur)) || l->n == l->cap))
            return false;
        /* acquire on success: the words are ours until we release the orec; the release fence
         * keeps our in-place stores after the lock for readers' orec loads (as eager_lock). */
        TM_LINES_AT(TM_LK_OREC, TM_LP_WRITE, o);
        if (TM_UNLIKELY(!atomic_compare_exchange_strong_explicit(o, &cur, mine, memory_order_acquire,
                                                                 memory_order_relaxed)))
            return false;
        atomic_thread_fence(memory_order_release);
        /* no owner: the orec's value names us; no old value: a release takes a new time */
        l->rec[l->n++].orec = o;
    }
    if (TM_UNLIKELY(!tm_undo_push_fast(&tx->undo, addr, size)))
        return false;
    tm_store_n(addr, raw, size);
    return true;
}

/* orec_eager's read log still valid (ext/wait.c asks too). */
TM_HIDDEN bool tm_eager_validate(tm_tx *tx);

/* The start of every orec_eager attempt, logged or not: snapshot, empty read log, no locks
 * (the lock records exist from the thread's taking of its descriptor). */
static inline void tm_eager_attempt_start(tm_tx *tx)
{
    tm_orec_begin(tx);
    tm_olog_reset(&tx->olog);
    tm_locks_reserve(tx, 1)->n = 0;
}

/* orec_eager's unlogged read-only attempts (orec_eager_ro.c): the dispatch a first attempt of a
 * transaction flagged read-only switches to, its reads (orec_eager.c, which shares the read
 * path), and its "validation": true only while it has read nothing. */
extern const tm_dispatch tm_disp_orec_eager_ro TM_HIDDEN;
TM_HIDDEN void tm_eager_ro_read(tm_tx *tx, void *dst, const void *src, size_t len);
static inline bool tm_eager_ro_validate(tm_tx *tx) { return tm_olog_n(&tx->olog) == 0; }

#endif

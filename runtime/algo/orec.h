/* The ownership-record table and global clock shared by orec_lazy and orec_eager.
 * An unlocked orec holds (version << 1): the commit time of the last writer of its words. A
 * locked one has bit 0 set; the rest identifies the owner (each algorithm documents how). */
#ifndef TMKIT_ALGO_OREC_H
#define TMKIT_ALGO_OREC_H

#include <string.h>

#include "../core/tx.h"
#include "fast.h"

#define TM_OREC_BITS 18

extern _Atomic uint64_t tm_orecs[1u << TM_OREC_BITS] TM_HIDDEN;
extern tm_line64 tm_orec_clock_line TM_HIDDEN; /* alone on its cache line */
#define tm_orec_clock (tm_orec_clock_line.w)

/* Set once, when tmkit.h's atomics first run on the orecs outside a transaction
 * (ext/atomic_orec.c). Such an operation gives its word's orec a version newer than the clock
 * without taking a time, so that atomics on different words write no shared line (GV5 in
 * TL2's terms: the first transaction that meets such a version raises the clock to it, see
 * tm_orec_extend). Then "nobody took a time since my snapshot" no longer proves a read log
 * valid, and writer commits validate whenever the flag is set. Read-mostly, alone on its line. */
extern tm_line32 tm_orec_atomics_line TM_HIDDEN;
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
    while (now < v && !atomic_compare_exchange_weak_explicit(&tm_orec_clock, &now, v,
                                                             memory_order_acq_rel,
                                                             memory_order_acquire)) {
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
    while (!atomic_compare_exchange_weak_explicit(&tm_orec_clock, &now, next, memory_order_acq_rel,
                                                  memory_order_acquire));
    return next;
}

static inline _Atomic uint64_t *tm_orec_of(uintptr_t addr)
{
    return &tm_orecs[(addr >> 3) & ((1u << TM_OREC_BITS) - 1)];
}

static inline bool tm_orec_locked(uint64_t v) { return v & 1; }

/* The orecs a transaction has locked, in tx->algo_state: one type for both orec algorithms,
 * which adaptive may run one after the other in the same thread (each resets `n` before use; a
 * switch of algorithm drains every transaction, so none holds a lock across it). orec_lazy's
 * locked orecs point at their record (owner: who holds it); orec_eager's hold tx | 1. The
 * records follow the header in one block, so one free() releases everything. */
typedef struct tm_lockrec {
    tm_tx *owner;
    uint64_t old; /* the orec value the lock replaced */
    _Atomic uint64_t *orec;
} tm_lockrec;

typedef struct tm_locks {
    size_t n, cap;
    tm_lockrec rec[];
} tm_locks;

/* The thread's lock records with room for `want` (never moved while orecs point into it:
 * orec_lazy reserves before it locks anything). */
static inline tm_locks *tm_locks_reserve(tm_tx *tx, size_t want)
{
    tm_locks *l = tx->algo_state;
    if (TM_UNLIKELY(!l || l->cap < want)) {
        size_t cap = l ? l->cap : 32;
        while (cap < want)
            cap *= 2;
        l = tm_xrealloc(l, sizeof *l + cap * sizeof l->rec[0], "orec lock records");
        if (!tx->algo_state)
            l->n = 0;
        l->cap = cap;
        tx->algo_state = l;
    }
    return l;
}
static inline uint64_t tm_orec_version(uint64_t v) { return v >> 1; }

/* Starts an attempt at the current clock and publishes the snapshot for quiescence. */
static inline void tm_orec_begin(tm_tx *tx)
{
    /* acquire: versions <= this time were published by commits we now see. */
    tx->snapshot = atomic_load_explicit(&tm_orec_clock, memory_order_acquire);
    /* release: pairs with the acquire loads in tm_quiesce. */
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
    /* release: pairs with the acquire loads in tm_quiesce. */
    atomic_store_explicit(&tx->shared_ts, now, memory_order_release);
    return true;
}

/* Reads [addr, addr+len) (len <= 8, within one aligned word) consistently with the snapshot and
 * logs its orec. `mine` is the orec value meaning "locked by this transaction" (its data is
 * then read directly), or 0 if the algorithm never holds a lock while reading. */
static inline __attribute__((always_inline)) void
tm_orec_read_word(tm_tx *tx, unsigned char *dst, uintptr_t addr, size_t len, uint64_t mine,
                  bool (*validate)(tm_tx *))
{
    _Atomic uint64_t *o = tm_orec_of(addr);
    for (unsigned spin = 0;; spin++) {
        /* acquire: the value load below sees the data of the version we read here. */
        uint64_t v1 = atomic_load_explicit(o, memory_order_acquire);
        if (mine && v1 == mine) {
            memcpy(dst, (const void *)addr, len);
            return;
        }
        if (tm_orec_locked(v1)) {
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

/* Inline fast path of a naturally aligned read of 1-8 bytes (the barriers' common case): the
 * word's orec is unlocked (or, with `mine`, locked by us) and no newer than the snapshot, and the
 * read log has room. Anything else (write-set hit, locked, newer version: snapshot extension)
 * returns false and the caller takes tm_orec_read_word through the dispatch table. Same
 * protocol and memory orders as tm_orec_read_word. */
static inline __attribute__((always_inline)) bool
tm_orec_read_fast(tm_tx *tx, const void *addr, unsigned size, uint64_t *out, uint64_t mine)
{
    _Atomic uint64_t *o = tm_orec_of((uintptr_t)addr);
    /* acquire: the value load below sees the data of the version read here. */
    uint64_t v1 = atomic_load_explicit(o, memory_order_acquire);
    tm_rset *r = &tx->rset;
    if (TM_UNLIKELY(tm_orec_locked(v1) || tm_orec_version(v1) > tx->snapshot || r->n == r->cap)) {
        if (mine && v1 == mine) { /* our own lock: only we write the word */
            *out = tm_load_n(addr, size);
            return true;
        }
        return false;
    }
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

/* Inline fast path of orec_eager's write of one naturally aligned value of 1-8 bytes: the word's
 * orec is ours already, or unlocked, no newer than the snapshot and lockable with one CAS while
 * the lock records and the undo log have room. Anything else (held by another, newer version:
 * snapshot extension, a lost CAS, a log to grow) returns false and the caller takes eager_write
 * through the dispatch table, which finds the orec ours if this path locked it. Same protocol
 * and memory orders as eager_lock, tm_undo_push and eager_write. */
static inline __attribute__((always_inline)) bool
tm_eager_write_fast(tm_tx *tx, void *addr, uint64_t raw, unsigned size)
{
    _Atomic uint64_t *o = tm_orec_of((uintptr_t)addr);
    uint64_t mine = (uint64_t)(uintptr_t)tx | 1;
    /* relaxed: an orec we hold only we change, so this sees our own lock value; any other
     * value is checked again by the CAS below. */
    uint64_t cur = atomic_load_explicit(o, memory_order_relaxed);
    if (cur != mine) {
        tm_locks *l = tx->algo_state; /* allocated by eager_begin */
        if (TM_UNLIKELY(tm_orec_locked(cur) || tm_orec_version(cur) > tx->snapshot ||
                        l->n == l->cap))
            return false;
        /* acquire on success: the words are ours until we release the orec; the release fence
         * keeps our in-place stores after the lock for readers' orec re-checks (as eager_lock). */
        if (TM_UNLIKELY(!atomic_compare_exchange_strong_explicit(o, &cur, mine, memory_order_acquire,
                                                                 memory_order_relaxed)))
            return false;
        atomic_thread_fence(memory_order_release);
        l->rec[l->n++] = (tm_lockrec){tx, cur, o};
    }
    if (TM_UNLIKELY(!tm_undo_push_fast(&tx->undo, addr, size)))
        return false;
    tm_store_n(addr, raw, size);
    return true;
}

/* Reads any range word by word with tm_orec_read_word. */
static inline __attribute__((always_inline)) void
tm_orec_read_range(tm_tx *tx, unsigned char *dst, uintptr_t addr, size_t len, uint64_t mine,
                   bool (*validate)(tm_tx *))
{
    while (len) {
        size_t n = 8 - (addr & 7) < len ? 8 - (addr & 7) : len;
        tm_orec_read_word(tx, dst, addr, n, mine, validate);
        addr += n;
        dst += n;
        len -= n;
    }
}

#endif

/* orec_eager: ownership records, encounter-time locking, write-through with an undo log.
 *
 * Follows the write-through, encounter-time-locking variant of TinySTM (Felber, Fetzer, Riegel,
 * "Dynamic Performance Tuning of Word-Based Software Transactional Memory", PPoPP 2008) and the
 * ml_wt method of GCC's libitm, over the orec table shared with orec_lazy (orec.h), with commit
 * times that write no shared line: TL2's GV5 (Dice, Shalev, Shavit, DISC 2006), plus a rule of
 * our own for a thread's own releases.
 * Invariants:
 *  - A writer locks a word's orec (value: tm_orec_lock_of(descriptor)) before its first write
 *    to it, logs the old bytes, then writes in place; nobody else reads or writes words under a
 *    lock that is not theirs (readers wait briefly, then abort; writers abort at once, so there
 *    is no deadlock; one exception, which cannot deadlock either: a transaction holding no lock
 *    waits for one that a committed writer holds through its privatization wait, orec.h's
 *    tm_orec_wait_release).
 *  - Release times (commit and rollback alike) come from eager_time: after a full fence that
 *    makes our in-place stores visible, the clock is loaded, NOT incremented, and the time is
 *    one past both it and the newest version this descriptor released. So a transaction whose
 *    snapshot was taken before we locked a word sees any version we give it as newer than its
 *    snapshot (the clock was at least its snapshot when we loaded it), and an orec's versions
 *    only grow. The clock moves only when a transaction meets a version above it and raises
 *    the clock to it (tm_orec_extend): commits of disjoint data write no common line.
 *  - Every version at most the snapshot is consistent with it: the writer of such a version
 *    loaded the clock (after locking and writing everything) before the clock reached our
 *    snapshot, so before we began; we see its data and its locks. That needs the writer's
 *    stores to be visible before its clock load: the fence in eager_time (x86-TSO; the runtime
 *    is x86-64 only). Because several writers may take the same time, a writer always
 *    validates its reads (GV5 has no "nobody committed since my snapshot" shortcut).
 *  - Reads load the value, then the orec (no second orec load): if the value came from a
 *    writer's store, that writer's lock precedes the store, so the orec load sees the lock or a
 *    later release, whose version is newer than our snapshot (rollbacks too: that is why they
 *    take a new time instead of restoring the old version). An orec at most the snapshot
 *    therefore vouches for the value read before it. A newer version extends the snapshot
 *    (LSA: validate the read log at the current clock) and reads again. The log keeps only
 *    the orec: a logged orec is valid while it is at most the (validated) snapshot, because
 *    any change after our read has a newer version. The first attempt of a transaction that
 *    GCC flags read-only keeps no log at all (orec_eager_ro.c).
 *  - Own slot: each descriptor has a slot number (1 .. TM_OREC_SLOTS - 1, or none) that its
 *    releases put in the orec. An unlocked orec with our slot was released by this descriptor
 *    before the running transaction began (a transaction releases nothing before it ends) and
 *    nobody wrote the words since (they would have replaced the slot): its words are the ones
 *    memory held when we began, so we may read, validate and lock it whatever its version,
 *    without raising the clock. Without this rule a thread that rereads its own last writes
 *    (a counter, a queue end) would raise the clock in every transaction.
 *  - Lock records keep only the orec (orec_lazy's also keep its old value, which a release
 *    here never restores): rollback (after the core restored memory from the undo log)
 *    releases with a new time, like a commit.
 * Privatization: a doomed writer rolls back in place, so a privatizer must wait for it:
 * commit-time quiescence by the end of the attempts running at the commit (tm_quiesce_ended,
 * core/serial.c): snapshots need not pass our time, which our clock may never reach.
 *  - Selective: only for the attempts that read a word the commit wrote. Those are the only
 *    ones it can doom; one that read none of them may be ordered before the commit, and if it
 *    then touches what the commit made private, the program races under single-global-lock
 *    semantics whichever order is chosen (the privatizer's plain accesses and the transaction
 *    are unordered when the transaction comes second), so the runtime owes it nothing. Reads
 *    made partially visible so that a writer waits only when a reader of its data may run
 *    (the idea of Marathe, Spear, Scott, "Scalable Techniques for Transparent Privatization
 *    in Software Transactional Memory", ICPP 2008), here as one bit a descriptor: each orec
 *    has a readers' word beside it (orec.h), in which a reader sets its descriptor's bit
 *    (obit: 1 << slot for slots 1..63, bit 0 shared by the rest) before it accepts a value,
 *    the first time only (tm_eager_marked: an atomic OR, then the orec again, which must be
 *    unchanged). A committer loads the readers' words of
 *    its orecs after its lock and eager_time's fence, and waits only for descriptors with
 *    those bits (tx->oreaders; none: no wait, and no other descriptor's line read); after the
 *    wait, still holding the orecs, it clears the bits of those it found outside any
 *    transaction (their attempts have ended; busy readers keep theirs: eager_clear_readers).
 *    Dekker pairs: the reader's OR then orec load, the writer's lock then (fence) readers'
 *    load; one of them sees the other, and a reader that sees the lock reads again. A bit seen
 *    already set was set after the last clear, which the last writer made before the release
 *    that the reader's acquire load of the orec saw. Bits are sticky between writes of the
 *    word, so a word read by everybody (a tree's root) still makes its writers wait for all;
 *    words each thread keeps to itself (disjoint counters) never do.
 * Shared lines written per transaction: the orecs of the words written, a readers' word the
 * first time a thread reads a word after another thread's commit to it; the clock only when
 * reading another thread's newer data. Quiescence reads the lines of the descriptors whose
 * bits it found.
 */
#include <string.h>

#include "algo.h"
#include "orec.h"

static inline uint64_t tm_eager_mine(const tm_tx *tx) { return tm_orec_lock_of(tx); }

bool tm_eager_validate(tm_tx *tx)
{
    uint64_t bound = tx->obound, mine = tm_eager_mine(tx);
    for (const uintptr_t *p = tx->olog.base; p < tx->olog.cur; p++) {
        /* acquire: pairs with the release store that unlocks an orec. */
        uint64_t cur = atomic_load_explicit((_Atomic uint64_t *)*p, memory_order_acquire);
        if (cur > bound && cur != mine && !tm_eager_slot_ok(tx, cur))
            return false;
    }
    return true;
}

/* A first attempt of a transaction that GCC flags read-only keeps no read log
 * (orec_eager_ro.c); any other attempt logs. */
static void eager_begin(tm_tx *tx)
{
    tm_eager_attempt_start(tx);
    if ((tx->prop & pr_readOnly) && tx->retries == 0)
        tm_set_disp(tx, &tm_disp_orec_eager_ro);
}

/* The descriptor whose orec_eager lock `cur` is, or NULL: an orec locked by one of tmkit.h's
 * atomics (ext/atomic_orec.c) names a lock record, not a descriptor, and must not be read as
 * one (valgrind caught tm_orec_wait_release reading a record's neighbour as shared_ts). Walks
 * the registry, comparing addresses only: on the conflict path only. */
static const tm_tx *eager_lock_owner(uint64_t cur)
{
    const void *p = tm_orec_owner(cur);
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_acquire))
        if ((const void *)t == p)
            return t;
    return NULL;
}

/* Reads len <= 8 bytes within one aligned word (the value, then the orec: see the top), and
 * logs the orec, or only counts the read in an unlogged read-only attempt (orec_eager_ro.c),
 * whose snapshot can then move only while it has read nothing. */
static inline __attribute__((always_inline)) void
eager_read_word_as(tm_tx *tx, unsigned char *dst, uintptr_t addr, size_t len, bool logged)
{
    bool (*validate)(tm_tx *) = logged ? tm_eager_validate : tm_eager_ro_validate;
    _Atomic uint64_t *o = tm_orec_of(addr);
    for (unsigned spin = 0;; spin++) {
        memcpy(dst, (const void *)addr, len);
        /* acquire fence: the value load happens before the orec load; acquire load: the readers'
         * word's load after it (tm_eager_marked). */
        atomic_thread_fence(memory_order_acquire);
        uint64_t cur = atomic_load_explicit(o, memory_order_acquire);
        if (cur == tm_eager_mine(tx))
            return; /* our own write: nothing to validate */
        if (cur <= tx->obound || tm_eager_slot_ok(tx, cur)) {
            if (!tm_eager_marked(tx, o, cur))
                continue; /* a writer locked it meanwhile */
            if (logged)
                tm_olog_push(&tx->olog, (uintptr_t)o);
            else
                tx->olog.unlogged++;
            return;
        }
        if (tm_orec_locked(cur)) {
            /* A committed writer in its privatization wait: wait with it, if nothing of ours
             * is in memory (orec.h). Asked at once, not only after the spin below: the writer
             * waits for this very attempt, so every pause here delays both of us (a token
             * polled in read-only transactions: 0.5M hand-offs/s when asked after the spin). */
            const tm_tx *owner;
            if ((spin == 0 || spin == 64) && ((tm_locks *)tx->algo_state)->n == 0 &&
                (owner = eager_lock_owner(cur)) &&
                tm_orec_wait_release(tx, o, cur, owner, validate)) {
                spin = 0;
                continue;
            }
            if (spin < 64) { /* a writer may be about to commit: wait briefly */
                __builtin_ia32_pause();
                continue;
            }
            tm_restart(tx, TM_ABORT_READ_CONFLICT);
        }
        /* Newer than the snapshot: extend it (the log is validated at the old one), then read
         * again, since the value loaded above may predate that version. */
        if (!tm_orec_extend(tx, validate, tm_orec_version(cur)))
            tm_restart(tx, TM_ABORT_READ_CONFLICT);
    }
}

static void eager_read_word(tm_tx *tx, unsigned char *dst, uintptr_t addr, size_t len)
{
    eager_read_word_as(tx, dst, addr, len, true);
}

static void eager_ro_read_word(tm_tx *tx, unsigned char *dst, uintptr_t addr, size_t len)
{
    eager_read_word_as(tx, dst, addr, len, false);
}

static void eager_read(tm_tx *tx, void *dst, const void *src, size_t len)
{
    TM_LINES_PHASE(TM_LP_READ);
    tm_orec_read_range(tx, dst, (uintptr_t)src, len, eager_read_word);
}

void tm_eager_ro_read(tm_tx *tx, void *dst, const void *src, size_t len)
{
    TM_LINES_PHASE(TM_LP_READ);
    tm_orec_read_range(tx, dst, (uintptr_t)src, len, eager_ro_read_word);
}

static void eager_lock(tm_tx *tx, _Atomic uint64_t *o)
{
    uint64_t cur = atomic_load_explicit(o, memory_order_relaxed);
    if (cur == tm_eager_mine(tx))
        return;
    if (cur > tx->obound && !tm_eager_slot_ok(tx, cur)) {
        /* a lock: abort at once (no deadlock), unless it is a committed writer's through its
         * privatization wait and we hold nothing yet (orec.h: tm_orec_wait_release) */
        while (tm_orec_locked(cur)) {
            const tm_tx *owner = ((tm_locks *)tx->algo_state)->n ? NULL : eager_lock_owner(cur);
            if (!owner || !tm_orec_wait_release(tx, o, cur, owner, tm_eager_validate))
                tm_restart(tx, TM_ABORT_WRITE_CONFLICT);
            cur = atomic_load_explicit(o, memory_order_relaxed);
        }
        if (cur <= tx->obound || tm_eager_slot_ok(tx, cur))
            goto lockable;
        if (!tm_orec_extend(tx, tm_eager_validate, tm_orec_version(cur)))
            tm_restart(tx, TM_ABORT_WRITE_CONFLICT);
    }
lockable:;
    tm_locks *l = tx->algo_state;
    if (TM_UNLIKELY(l->n == l->cap))
        l = tm_locks_reserve(tx, l->n + 1);
    /* acquire on success: the words are ours until we release the orec; the release fence
     * keeps our in-place stores after the lock for readers' orec loads. */
    TM_LINES(TM_LK_OREC, o);
    if (!atomic_compare_exchange_strong_explicit(o, &cur, tm_eager_mine(tx), memory_order_acquire,
                                                 memory_order_relaxed))
        tm_restart(tx, TM_ABORT_WRITE_CONFLICT);
    atomic_thread_fence(memory_order_release);
    l->rec[l->n++].orec = o; /* only the orec: a release takes a new time (see the top) */
}

static void eager_write(tm_tx *tx, void *dst, const void *src, size_t len)
{
    uintptr_t a = (uintptr_t)dst, end = a + len;
    TM_LINES_PHASE(TM_LP_WRITE);
    for (uintptr_t w = a & ~(uintptr_t)7; w < end; w += 8)
        eager_lock(tx, tm_orec_of(w));
    tm_undo_push(&tx->undo, dst, len);
    memcpy(dst, src, len);
}

/* A release time (see the top). */
static uint64_t eager_time(const tm_tx *tx)
{
    /* seq_cst fence: our in-place stores (or the core's restoration of them) are visible to
     * every thread before the clock's load below, so a transaction whose snapshot is at least
     * the time we take sees them. */
    atomic_thread_fence(memory_order_seq_cst);
    /* acquire: as a snapshot's load. */
    uint64_t now = atomic_load_explicit(&tm_orec_clock, memory_order_acquire);
    return (now > tx->orec_last ? now : tx->orec_last) + 1;
}

static void eager_release(tm_tx *tx, uint64_t version)
{
    tm_locks *l = tx->algo_state;
    uint64_t v = tm_orec_unlocked(version, tx->orec_slot == ~0ull ? 0 : tx->orec_slot);
    for (size_t i = 0; i < l->n; i++) {
        /* release: our in-place writes (or their restoration) happen-before a reader of the orec. */
        TM_LINES(TM_LK_OREC, l->rec[i].orec);
        atomic_store_explicit(l->rec[i].orec, v, memory_order_release);
    }
    l->n = 0;
    tx->orec_last = version;
}

/* The readers' bits of the orecs we hold, but our own (bit 0 is nobody's own: several
 * descriptors share it): the descriptors whose running attempts our privatization wait must
 * wait for (tm_quiesce_ended). After eager_time's fence: a reader that sets its bit after our
 * loads sees our lock when it checks the orec again (tm_eager_marked), and reads again. */
static uint64_t eager_readers(const tm_tx *tx, const tm_locks *l)
{
    uint64_t own = tx->obit == 1 ? 0 : tx->obit, found = 0;
    for (size_t i = 0; i < l->n; i++)
        /* ordered after our lock and the fence (above); acquire: the setter's descriptor entry
         * (tm_desc_by_bit), stored before it set its bit, is visible to our wait */
        found |= atomic_load_explicit(tm_orec_readers(l->rec[i].orec), memory_order_acquire);
    return found & ~own;
}

/* After the privatization wait, before the release: the bits in tx->oreaders, those of readers
 * the wait found outside any transaction (tm_quiesce_ended), go: those readers are done with
 * the words and set their bits again if they read them, after our release. The bits of readers
 * inside a transaction stay: a busy reader of the words is likely to read them again, and
 * setting its bit again would take the orec's line from us between our commit and our next
 * lock of it (a token passed between threads that poll it: 1.0M -> 0.7M hand-offs/s when every
 * bit was cleared). A bit set since eager_readers is one whose setter saw our lock and read
 * again. Not after a commit that skipped the wait (a promise: privatize.c), which must leave the
 * bits for the next writer of the words: the readers may still run, doomed. */
static void eager_clear_readers(const tm_tx *tx, const tm_locks *l)
{
    uint64_t keep = ~tx->oreaders;
    for (size_t i = 0; i < l->n; i++) {
        _Atomic uint64_t *r = tm_orec_readers(l->rec[i].orec);
        /* relaxed: published by the orec's release store, which follows */
        uint64_t b = atomic_load_explicit(r, memory_order_relaxed);
        if (b & ~keep) {
            TM_LINES(TM_LK_OREC, r);
            atomic_store_explicit(r, b & keep, memory_order_relaxed);
        }
    }
}

static bool eager_commit(tm_tx *tx, tm_skip skip, uint64_t *ts)
{
    (void)skip;
    *ts = 0;
    tm_locks *l = tx->algo_state;
    if (!l || l->n == 0)
        return true; /* read-only */
    uint64_t wv = eager_time(tx);
    if (!tm_eager_validate(tx))
        return false; /* the core rolls back, then eager_rollback releases the orecs */
    tx->oreaders = eager_readers(tx, l);
    l->version = wv; /* released by eager_published, after the privatization wait */
    *ts = wv;
    return true;
}

/* The commit's orecs stay locked through its privatization wait (tx.h: published): until the
 * attempts it may have doomed have rolled back, nobody reads what it wrote, so a read-only
 * transaction that sees it cannot hand plain code data a doomed writer still holds. A
 * transaction that meets the lock meanwhile waits for it if it holds no lock itself (orec.h:
 * tm_orec_wait_release), else it aborts, which ends the attempt the wait may be for. */
static void eager_published(tm_tx *tx)
{
    tm_locks *l = tx->algo_state;
    if (tx->oreaders) {
        eager_clear_readers(tx, l);
        tx->oreaders = 0;
    }
    eager_release(tx, l->version);
}

/* The core has already restored memory. The orecs get a new time, not their old version: a
 * reader that loaded a value during our lock must see its orec change, or it would accept our
 * rolled-back data (ABA). */
static void eager_rollback(tm_tx *tx)
{
    tm_locks *l = tx->algo_state;
    if (!l || l->n == 0)
        return;
    eager_release(tx, eager_time(tx));
}

static bool eager_upgrade(tm_tx *tx, tm_skip skip)
{
    (void)skip;
    if (!tm_eager_validate(tx))
        return false;
    tm_locks *l = tx->algo_state;
    if (l && l->n)
        eager_release(tx, eager_time(tx));
    return true;
}

const tm_dispatch tm_disp_orec_eager = {
    .name = "orec_eager",
    .mode = TM_MODE_OREC_EAGER,
    .read = eager_read,
    .write = eager_write,
    .begin = eager_begin,
    .commit = eager_commit,
    .rollback = eager_rollback,
    .upgrade = eager_upgrade,
    .quiesce_ended = true,
    .published = eager_published,
    .prepare = tm_orecs_populate,
};

const tm_algo tm_algo_orec_eager = {
    .name = "orec_eager",
    .summary = "ownership records, encounter-time locking, write-through with undo log",
    .disp = &tm_disp_orec_eager,
};

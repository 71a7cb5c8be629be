/* orec_eager's read-only attempts: reads checked against the snapshot and counted, not logged.
 *
 * Follows TL2's read-only transactions (Dice, Shalev, Shavit, "Transactional Locking II", DISC
 * 2006), which keep no read set and check each read against their start time, and TinySTM's
 * read-only mode (Felber, Fetzer, Riegel, PPoPP 2008), which restarts as an update transaction
 * when a read-only one writes. Why here: a read under orec_eager (orec_eager.c) loads the value,
 * the orec and the orec's readers' word, and appends the orec to the read log; the log costs
 * about a sixth of the read (5 of ~30 instructions in the barrier, plus its memory), and a
 * transaction that writes nothing needs it only to move its snapshot.
 *
 * When. The first attempt of a transaction that GCC flags read-only (pr_readOnly: no store in
 * its body; eager_begin switches to this table); every later attempt of the same transaction
 * logs (tx->retries > 0), so the lack of a log ends one attempt of a transaction at most (a
 * wait's restart, ext/wait.c, starts a new first attempt, which may run unlogged again).
 * Invariants (the rest of orec_eager's hold unchanged, orec_eager.c):
 *  - Every read is accepted as orec_eager accepts it (value, then orec at most the snapshot, or
 *    released by this descriptor before we began, and our readers' bit set), so every value is
 *    the one memory held at the snapshot: the snapshot alone makes the reads consistent, and the
 *    commit has nothing to check (orec_eager's read-only commits do not validate either).
 *  - The snapshot moves (an orec newer than it, or a wait for a committed writer's release:
 *    orec.h) only while the attempt has read nothing (tm_eager_ro_validate): a later move
 *    would need the orecs already read. Otherwise the attempt restarts (read conflict), and
 *    the next one logs and extends as orec_eager does.
 *  - The readers' bits are set as in a logged attempt: a writer's privatization wait must see
 *    this attempt whether it logs or not.
 *  - It writes nothing. A write (GCC's flag is a hint: a transaction whose only store is inside a
 *    transaction_pure function, or a memcpy that abi/interpose.c takes into the attempt, writes
 *    through the barriers anyway) restarts it (validation), as does a request to go irrevocable
 *    after a read or to wait (ext/wait.c: tm_retry and tm_cond_wait must know what was read).
 * Shared lines written: a readers' word the first time the thread reads a word after another
 * thread's commit to it, as orec_eager; nothing at the commit.
 */
#include "algo.h"
#include "orec.h"

/* As eager_begin, but stays unlogged (this table is reached only through eager_begin). */
static void ro_begin(tm_tx *tx)
{
    tm_eager_attempt_start(tx);
}

static void ro_write(tm_tx *tx, void *dst, const void *src, size_t len)
{
    (void)dst;
    (void)src;
    (void)len;
    tm_restart(tx, TM_ABORT_VALIDATE); /* the next attempt logs, then writes */
}

static bool ro_commit(tm_tx *tx, tm_skip skip, uint64_t *ts)
{
    (void)tx;
    (void)skip;
    *ts = 0; /* wrote nothing: no privatization wait, nothing to release */
    return true;
}

static void ro_rollback(tm_tx *tx)
{
    (void)tx; /* holds no orec */
}

/* Every other transaction is drained; the reads are still current only if there are none. */
static bool ro_upgrade(tm_tx *tx, tm_skip skip)
{
    (void)skip;
    return tm_eager_ro_validate(tx);
}

/* After its restart: no back-off. What ended it was its own lack of a log (a version newer than
 * its snapshot, a write, a wait), which the next attempt, logged, handles; a lock that it
 * waited out in vain that attempt waits for again before it gives up. */
static bool ro_settle(tm_tx *tx)
{
    (void)tx;
    return true;
}

const tm_dispatch tm_disp_orec_eager_ro = {
    .name = "orec_eager",
    .mode = TM_MODE_OREC_RO,
    .read = tm_eager_ro_read,
    .write = ro_write,
    .begin = ro_begin,
    .commit = ro_commit,
    .rollback = ro_rollback,
    .upgrade = ro_upgrade,
    .quiesce_ended = true,
    .settle = ro_settle,
};

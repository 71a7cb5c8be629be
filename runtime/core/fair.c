/* Fairness between threads whose transactions doom each other (adaptive's gl_wt mode).
 *
 * gl_wt has no snapshot extension (algo/gl_wt.c): a commit dooms every transaction that began
 * before it. Where a thread's commits are far apart it restarts without back-off (txn.c:
 * tm_backoff), and the thread that just committed starts its next transaction at once, so it
 * commits again before the other's restart gets through. One thread then leads and the other
 * aborts most of its attempts: STAMP's genome at 2 threads, adaptive held in gl_wt, committed
 * 1.4-1.5x as fast on its main thread, whose partner aborted 2.5x as often and then ran alone
 * for the last 10-15% of the commits, since the work is split in equal shares
 * (bench/results/third-party, "genome: gl_wt's leader and the lone tail").
 *
 * The remedy is the contention manager's "let the one that starves through": a gl_wt attempt
 * that has restarted TM_FAIR_RETRIES times without back-off claims a turn (tm_fair_until, a
 * TSC deadline TM_FAIR_MAX_WAIT away), and every other thread's next gl_wt transaction waits
 * at its begin until the claimant commits, which withdraws the claim, or the deadline passes.
 * So a claimant that stalls, is preempted or goes on to the serial fallback holds the others
 * at most that long. Nothing depends on the word for correctness: it only delays a first
 * attempt at its begin, where nothing has been read, and a waiter holds no lock; as a reader
 * of the serial lock it leaves as soon as the lock is taken (a holder drains readers), and it
 * does not wait where commits wait for readers (tm_fair_wait).
 *
 * Back-to-back writers never claim: their commits are close together, so they back off
 * instead (txn.c), and tm_fair_until stays 0, a read of a line nobody writes at each begin.
 * Nor does anyone claim where no begin would wait (tm_fair_applies): in adaptive's other modes,
 * or where commits wait for readers.
 */
#include "config.h"
#include "serial_fast.h"

/* tm_fair_until: the standing claim's deadline, or 0. Alone on its line: written only by
 * claims and their withdrawals, read by every gl_wt begin. */
tm_line64 tm_fair_line;
#define tm_fair_until tm_fair_line.w

void tm_fair_claim(tm_tx *tx)
{
    tx->cm.fair_claim = tm_tsc() + TM_FAIR_MAX_WAIT;
    tm_count_add1(&tx->cm.fair_claims);
    /* relaxed: a hint read by other threads' begins (see the top); a late reader waits less. */
    atomic_store_explicit(&tm_fair_until, tx->cm.fair_claim, memory_order_relaxed);
}

void tm_fair_release(tm_tx *tx)
{
    uint64_t mine = tx->cm.fair_claim;
    tx->cm.fair_claim = 0;
    /* relaxed: as above; the exchange leaves another thread's later claim in place. */
    atomic_compare_exchange_strong_explicit(&tm_fair_until, &mine, 0, memory_order_relaxed,
                                            memory_order_relaxed);
}

bool tm_fair_applies(const tm_dispatch *d)
{
    /* Only gl_wt's begin waits (tm_fair_begin). And a waiter is already a reader (its
     * descriptor active from the oldest time): where commits wait for readers to quiesce
     * (TMKIT_PRIVATIZATION=quiesce), the claimant's commit would wait for it while it waits for
     * the claimant. */
    return d->mode == TM_MODE_GLWT && !tm_quiesce_needed(d);
}

void tm_fair_wait(tm_tx *tx, uint64_t until)
{
    if (!tm_fair_applies(tx->disp))
        return;
    tm_count_add1(&tx->cm.fair_waits);
    for (unsigned i = 0;; i++) {
        /* relaxed: hints (see the top). The serial lock's word: a holder draining readers must
         * not wait for our deadline. */
        if (atomic_load_explicit(&tm_fair_until, memory_order_relaxed) != until ||
            atomic_load_explicit(&tm_serial_word, memory_order_relaxed))
            return;
        if ((i & 63) == 63 && tm_tsc() >= until) {
            /* an expired claim (its owner cancelled, or is gone): withdrawn for it */
            atomic_compare_exchange_strong_explicit(&tm_fair_until, &until, 0,
                                                    memory_order_relaxed, memory_order_relaxed);
            return;
        }
        __builtin_ia32_pause();
    }
}

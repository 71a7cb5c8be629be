/* Batches of whole attempts for the statistics (stats_batch.c; docs/stats.md). Included by
 * stats.h, whose tm_site it uses only through pointers. */
#ifndef TMKIT_STATS_BATCH_H
#define TMKIT_STATS_BATCH_H

#include "../core/tx.h"

/* checkpoint.S counts an attempt that cannot abort (biased, or adaptive's serial mode) with one
 * decrement of tx->stats_w_left when its site is the batch's: the descriptor's second line,
 * which the begin writes anyway, so the statistics add 4 instructions (5 in serial mode) and no
 * cache line to such a transaction (counting into the site: 7 and one or two lines of the
 * site; the empty transaction ran at 0.81-0.93x without statistics). A thread has one batch at
 * a time, started by the C path when it has none or when the batch's site runs less often than
 * another (tm_stats_whole_load). The site learns the count when the batch is folded: when it
 * runs out, before another attempt of its site is counted by the C paths (the batch holds part
 * of the site's countdown, t_left, which they use), when the thread exits, and when the report
 * is written. A batch holds at most the site's countdown, so the timed attempt comes when the
 * stride says. With a shared segment there are no batches: every attempt is counted into the
 * site by its commit (core's tm_commit_count_pending; more instructions and the site's line),
 * because a batch's count lives where only its thread can fold it: `tmkit stat` lagged up to 64 attempts behind a thread that
 * stopped transacting, and a process that ended without its exit hooks (_exit, kill -9, a
 * crash, execve) lost them for good (8-58 of 10,000 per forked child, 2026-11-24). */
extern int32_t tm_stats_whole_cap TM_HIDDEN; /* largest batch: INT32_MAX, or 0 (none) */
TM_HIDDEN void tm_stats_whole_fold(tm_tx *tx);
TM_HIDDEN void tm_stats_whole_load(tm_tx *tx, bool serial);
TM_HIDDEN void tm_stats_whole_fold_all(void);

/* The batch pc when batches are off: no site's (1 is the "other sites" pseudo-site's). */
#define TM_STATS_W_NONE ((uintptr_t)1)

/* The batch pc's tag for serial attempts: user-space code addresses have bit 63 clear. */
#define TM_STATS_W_SERIAL (1ull << TM_STATS_SERIAL_BIT)

/* Before an attempt of site pc is counted in C: fold the batch if it is pc's (pc is not 0). */
static inline void tm_stats_whole_end(tm_tx *tx, uintptr_t pc)
{
    if (TM_UNLIKELY((tx->stats_w_pc & ~TM_STATS_W_SERIAL) == pc))
        tm_stats_whole_fold(tx);
}

/* After checkpoint.S's C path counted a whole attempt (stats_begin.c): start a batch if the
 * thread has none, or replace one whose site missed (attempts of other sites on this path)
 * more than twice as often as it counted, plus 8. Inline: a third of the attempts of three
 * alternating sites come here. */
static inline void tm_stats_whole_maybe_load(tm_tx *tx, bool serial)
{
    if (TM_LIKELY(tx->stats_w_site != NULL) &&
        ++tx->stats_w_miss <= 2 * (uint32_t)(tx->stats_w_start - tx->stats_w_left) + 8)
        return;
    tm_stats_whole_load(tx, serial);
}

/* Whatever its site (thread exit, report). */
static inline void tm_stats_whole_flush(tm_tx *tx)
{
    if (tx->stats_w_site)
        tm_stats_whole_fold(tx);
}

#endif

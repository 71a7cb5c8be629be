/* abi/checkpoint.S's biased and serial begins with statistics on, when its batch cannot take the
 * attempt (TM_STATS_WHOLE counts the others itself): they count it, start the next batch and,
 * on the serial path, take the lock through core (core/begin.c: tm_begin_serial_counted). Here,
 * not in core, because they are the statistics' own paths: checkpoint.S calls down into them,
 * and core never calls up into stats but through its hooks (core/hooks.h). */
#include "stats.h"

/* Only jb0.pc, the site, was saved; checkpoint.S already started the transaction. */
TM_HIDDEN uint32_t tm_begin_biased_stats(uint32_t prop, tm_tx *tx);
uint32_t tm_begin_biased_stats(uint32_t prop, tm_tx *tx)
{
    (void)prop;
    tm_stats_attempt_whole(tx, false);
    tm_stats_whole_maybe_load(tx, false); /* the next ones in a batch, if it should */
    return a_runUninstrumentedCode | a_saveLiveVariables;
}

/* The serial path counts before it takes the lock, so that the statistics' work (this function
 * included) does not lengthen the critical section, which the other threads wait for: on a
 * shared counter at 2 threads a timed attempt's bookkeeping under the lock cost ~5% of the
 * throughput (2026-11-23). A timed attempt's clock starts once the lock is held: the wait is
 * timed on its own (cycles_serial_wait). */
TM_HIDDEN uint32_t tm_begin_serial_stats(uint32_t prop, tm_tx *tx);
uint32_t tm_begin_serial_stats(uint32_t prop, tm_tx *tx)
{
    /* checkpoint.S stores the properties when it takes the lock, after this count: a new site's
     * first attempt reads them (tm_stats_attempt_slow: does GCC start it irrevocable?). */
    tx->prop = prop;
    tm_stats_attempt_whole(tx, true);
    tm_stats_whole_maybe_load(tx, true);
    uint32_t a = tm_begin_serial_counted(prop, tx);
    if (tx->stats_t0)
        tx->stats_t0 = tm_stats_now();
    return a;
}

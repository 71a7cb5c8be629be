/* Batches of whole attempts (stats_batch.h): the count of a batch goes to its site, a batch
 * is started or replaced, every descriptor's batch is folded for the report. */
#include "stats.h"

int32_t tm_stats_whole_cap = INT32_MAX; /* 0 with a shared segment: no batches */

/* The batch's attempts go to its site (stats_batch.h). */
void tm_stats_whole_fold(tm_tx *tx)
{
    tm_site *s = tx->stats_w_site;
    int32_t used = tx->stats_w_start - tx->stats_w_left;
    if (tx->stats_w_pc & TM_STATS_W_SERIAL)
        s->fast_serial += (uint64_t)used;
    else
        s->fast += (uint64_t)used;
    s->t_left -= used;
    tx->stats_w_site = NULL;
    tx->stats_w_pc = 0;
}

/* After checkpoint.S's C path counted a whole attempt of a site not in the batch, when the
 * thread has no batch or its batch's site runs less often (tm_stats_whole_maybe_load): if the
 * attempt was counted by its cached site and not timed, the site's next attempts go in a new
 * batch. A batch kept by whichever site loaded it left the lookups of rbtree-1024-u10 (90% of
 * its attempts) on the C path for a whole stride when an update loaded it (+23 instructions a
 * transaction against +11 without batches); replaced at every miss, two alternating sites
 * traded it at every attempt (+43 on list-256-u50). The batch's size leaves the last attempt
 * of the countdown to the C path, which times it. */
void tm_stats_whole_load(tm_tx *tx, bool serial)
{
    uintptr_t pc = (uintptr_t)tx->jb0.pc;
    tm_site *s = tx->stats_l0;
    if (tm_stats_whole_cap <= 0) {
        /* No batches (a shared segment): a batch pc no attempt has, so that checkpoint.S counts
         * the attempts of the thread's last site into the site itself, as it does beside a batch
         * of another site, instead of coming here each time. */
        tx->stats_w_pc = TM_STATS_W_NONE;
        return;
    }
    if (tx->stats_site || tx->stats_t0 || tx->stats_l0_pc != pc || s->t_left <= 1)
        return;
    if (tx->stats_w_site)
        tm_stats_whole_fold(tx);
    int32_t n = s->t_left < tm_stats_whole_cap ? s->t_left : tm_stats_whole_cap;
    tx->stats_w_site = s;
    tx->stats_w_start = tx->stats_w_left = n;
    tx->stats_w_miss = 0;
    tx->stats_w_pc = serial ? pc | TM_STATS_W_SERIAL : pc;
}

/* At the report: every descriptor's batch. Another thread may still be running one (a process
 * exiting with threads alive); its last few counts may then be lost, as its running attempts
 * are. */
void tm_stats_whole_fold_all(void)
{
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_acquire))
        tm_stats_whole_flush(t);
}

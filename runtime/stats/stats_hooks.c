/* What stats/ fills in of core's upward hooks (core/hooks.h): the counting of attempts, commits,
 * aborts and waits, which core calls only while tm_stats_on, and the configuration, thread exit
 * and fork. The counting hooks keep the inline common cases of stats.h (a cached site, not
 * timed), now one call away from core: only paths that run with statistics on pay the call, and
 * the hottest of those (checkpoint.S's whole attempts, stats_begin.c) still count inline. */
#include "shm.h"
#include "stats.h"

static void tm_stats_hook_attempt(tm_tx *tx, bool serial) { tm_stats_attempt(tx, serial); }

static void tm_stats_hook_attempt_whole(tm_tx *tx, bool serial)
{
    tm_stats_attempt_whole(tx, serial);
}

static void tm_stats_hook_uninstrumented(tm_tx *tx)
{
    if (tx->stats_site)
        tx->stats_site->c[TM_STAT_uninstrumented_attempts]++;
}

static void tm_stats_hook_commit(tm_tx *tx) { tm_stats_commit(tx); }

static void tm_stats_hook_serial_wait(tm_tx *tx, uint64_t cycles)
{
    tm_stats_wait(tx, TM_STAT_cycles_serial_wait, cycles);
}

static void tm_stats_hook_quiesce_wait(tm_tx *tx, uint64_t cycles)
{
    tm_stats_wait(tx, TM_STAT_cycles_quiesce_wait, cycles);
}

/* Its batch's count to its site, for the live view. */
static void tm_stats_hook_thread_exit(tm_tx *tx) { tm_stats_whole_flush(tx); }

static const char *tm_stats_hook_shm_configure(const char *name)
{
    if (!tm_shm_name_valid(name))
        return TM_SHM_NAME_RULE;
    tm_stats_shm_configure(name);
    return NULL;
}

/* Before any thread exists and before the configuration is read: plain stores (hooks.h). */
__attribute__((constructor(TM_INIT_HOOKS))) static void tm_stats_hooks_init(void)
{
    tm_hooks.stats_attempt = tm_stats_hook_attempt;
    tm_hooks.stats_attempt_whole = tm_stats_hook_attempt_whole;
    tm_hooks.stats_uninstrumented = tm_stats_hook_uninstrumented;
    tm_hooks.stats_commit = tm_stats_hook_commit;
    tm_hooks.stats_abort = tm_stats_abort;
    tm_hooks.stats_nested_cancel = tm_stats_nested_cancel;
    tm_hooks.stats_irrevocable = tm_stats_irrevocable;
    tm_hooks.stats_htm = tm_stats_htm;
    tm_hooks.stats_serial_wait = tm_stats_hook_serial_wait;
    tm_hooks.stats_quiesce_wait = tm_stats_hook_quiesce_wait;
    tm_hooks.stats_thread_exit = tm_stats_hook_thread_exit;
    tm_hooks.stats_fork_child = tm_stats_fork_child;
    tm_hooks.stats_configure = tm_stats_configure;
    tm_hooks.stats_shm_configure = tm_stats_hook_shm_configure;
}

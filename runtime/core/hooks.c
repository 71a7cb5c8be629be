/* The upward hooks' table and core's defaults (hooks.h). A default is what core does without the
 * layer that fills the entry in: nothing. The upper layers replace them at TM_INIT_HOOKS, before
 * anything can call them: in the library every entry below is replaced, so the defaults only
 * keep the table whole (no entry is ever NULL, no call needs a test). */
#include "hooks.h"

bool tm_stats_on;
_Atomic uint32_t tm_wait_sleepers;

static void tm_hook_nop_tx(tm_tx *tx) { (void)tx; }
static void tm_hook_nop_tx_flag(tm_tx *tx, bool flag) { (void)tx, (void)flag; }
static void tm_hook_nop_tx_u64(tm_tx *tx, uint64_t v) { (void)tx, (void)v; }
static void tm_hook_nop_tx_size(tm_tx *tx, size_t v) { (void)tx, (void)v; }
static void tm_hook_nop_abort(tm_tx *tx, tm_abort_reason why) { (void)tx, (void)why; }
static void tm_hook_nop_tx_unsigned(tm_tx *tx, unsigned v) { (void)tx, (void)v; }
static void tm_hook_nop_irrevocable(tm_tx *tx, uintptr_t pc) { (void)tx, (void)pc; }
static void tm_hook_nop(void) {}
static void tm_hook_nop_str(const char *s) { (void)s; }
static const char *tm_hook_nop_shm(const char *name)
{
    (void)name;
    return NULL;
}
static bool tm_hook_no(const tm_tx *tx)
{
    (void)tx;
    return false;
}
static void tm_hook_no_wait(tm_tx *tx)
{
    (void)tx;
    tm_fatal("internal error: a wait was requested, but there is no runtime/ext to run it");
}
static void tm_hook_nop_eh(tm_tx *tx, uint32_t catch_target, bool outer)
{
    (void)tx, (void)catch_target, (void)outer;
}
static const tm_algo *const tm_hook_no_algos[] = {NULL};

tm_hooks_t tm_hooks = {
    .stats_attempt = tm_hook_nop_tx_flag,
    .stats_attempt_whole = tm_hook_nop_tx_flag,
    .stats_uninstrumented = tm_hook_nop_tx,
    .stats_commit = tm_hook_nop_tx,
    .stats_abort = tm_hook_nop_abort,
    .stats_nested_cancel = tm_hook_nop_tx,
    .stats_irrevocable = tm_hook_nop_irrevocable,
    .stats_htm = tm_hook_nop_tx_unsigned,
    .stats_serial_wait = tm_hook_nop_tx_u64,
    .stats_quiesce_wait = tm_hook_nop_tx_u64,
    .stats_thread_exit = tm_hook_nop_tx,
    .stats_fork_child = tm_hook_nop,
    .stats_configure = tm_hook_nop_str,
    .stats_shm_configure = tm_hook_nop_shm,
    .counters_apply = tm_hook_nop_tx,
    .counters_undo = tm_hook_nop_tx_size,
    .wait_and_restart = tm_hook_no_wait,
    .wait_wake = tm_hook_nop_tx,
    .no_privatization = tm_hook_no,
    .ext_thread_exit = tm_hook_nop_tx,
    .ext_fork_child = tm_hook_nop_tx,
    .algos = tm_hook_no_algos,
    .adaptive_modes = {NULL},
    .algo_state_init = tm_hook_nop_tx,
    .algo_state_free = tm_hook_nop_tx,
    .eh_rollback = tm_hook_nop_eh,
};

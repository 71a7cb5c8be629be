/* The upward hooks' table and core's defaults (hooks.h). A default is what core does without the
 * layer that fills the entry in: nothing. The upper layers replace them at TM_INIT_HOOKS, before
 * anything can call them: in the library every entry below is replaced, so the defaults only
 * keep the table whole (no entry is ever NULL, no call needs a test). */
#include "hooks.h"

static void tm_hook_nop_tx(tm_tx *tx) { (void)tx; }
static void tm_hook_nop_eh(tm_tx *tx, uint32_t catch_target, bool outer)
{
    (void)tx, (void)catch_target, (void)outer;
}
static const tm_algo *const tm_hook_no_algos[] = {NULL};

tm_hooks_t tm_hooks = {
    .algos = tm_hook_no_algos,
    .adaptive_modes = {NULL},
    .algo_state_free = tm_hook_nop_tx,
    .eh_rollback = tm_hook_nop_eh,
};

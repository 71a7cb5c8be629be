/* What ext/ fills in of core's upward hooks (core/hooks.h): the counters' additions at commit and
 * rollback, the waits' cancel and wake-ups, the promise not to privatize, and the lock groups
 * and waits at thread exit and fork. Core calls the counters' hooks only for a transaction that
 * made additions and the wake-up only while tm_retry waiters sleep (hooks.h), so a program that
 * uses no extension pays nothing for them. */
#include "ext.h"

/* fork()'s child: no thread of the child waits; the counters and groups keep its own share. */
static void tm_ext_fork_child(tm_tx *self)
{
    tm_wait_fork_child();
    tm_counters_fork_child();
    tm_groups_fork_child(self);
}

/* Before any thread exists and before the configuration is read: plain stores (hooks.h). */
__attribute__((constructor(TM_INIT_HOOKS))) static void tm_ext_hooks_init(void)
{
    tm_hooks.counters_apply = tm_counters_apply;
    tm_hooks.counters_undo = tm_counters_undo;
    tm_hooks.wait_and_restart = tm_wait_and_restart;
    tm_hooks.wait_wake = tm_wait_wake;
    tm_hooks.no_privatization = tm_promised_no_privatization;
    tm_hooks.ext_thread_exit = tm_groups_thread_exit;
    tm_hooks.ext_fork_child = tm_ext_fork_child;
}

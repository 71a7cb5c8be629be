/* tm_cond_t: condition variables for transactions (include/tmkit/wait.h).
 *
 * A condition is a sequence number and a waiter count (two 32-bit words, in that order). A
 * waiter reads the number through its transaction, together with the predicate it found false,
 * then cancels (wait.c): its attempt is rolled back and it sleeps on the number's futex while
 * the number is unchanged. A signal bumps the number and, if anybody waits, wakes one waiter
 * (tm_cond_signal) or all (tm_cond_broadcast); inside a transaction it does so when the
 * transaction commits, never for an attempt that rolls back.
 * No lost wake-up: the waiter raises the count (a seq_cst RMW) before it checks that what it
 * read is current (wait.c), and the signaller bumps the number (a seq_cst RMW) after its commit
 * made the predicate true, before it reads the count. Either the waiter sees the predicate's
 * change and runs again at once, or the signaller sees the waiter, and the bumped number makes
 * the waiter's futex wait return or wakes it. */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ext.h"

static void tm_cond_fire(void *cond, uintptr_t all)
{
    _Atomic uint32_t *seq = cond, *waiters = seq + 1;
    atomic_fetch_add_explicit(seq, 1, memory_order_seq_cst);
    if (atomic_load_explicit(waiters, memory_order_seq_cst))
        syscall(SYS_futex, seq, FUTEX_WAKE_PRIVATE, all ? INT_MAX : 1, NULL, NULL, 0);
}

/* seq points at the condition's first word (tm_cond_t). */
TM_EXPORT void tmkit_cond_signal(uint32_t *seq, int all)
{
    tm_tx *tx = tm_cur;
    if (!tx || tx->nesting == 0) {
        tm_cond_fire(seq, (uintptr_t)all);
        return;
    }
    /* At commit, in registration order with the other commit actions; dropped on abort. */
    tm_action_add(tx, TM_ACT_COMMIT_USER, tm_cond_fire, seq, (uintptr_t)all);
}

/* tm_cond_t: condition variables for transactions (include/tmkit/wait.h).
 *
 * A condition is a sequence number and a count of sleepers (two 32-bit words, in that order).
 * A waiter reads the number through its transaction, together with the predicate it found
 * false, then cancels (wait.c): its attempt is rolled back, it polls the number for a few
 * microseconds and then sleeps on its futex while it is unchanged. A signal bumps the number
 * and, if anybody sleeps, wakes one sleeper (tm_cond_signal) or all (tm_cond_broadcast); inside
 * a transaction it does so when the transaction commits, never for an attempt that rolls back.
 * No lost wake-up: the signal comes after the commit that made the predicate true, so a waiter
 * whose attempt read the number before the bump sees the bump (the futex compares the number
 * too); the sleeper raises the count (a seq_cst RMW) before its last look at the number, and
 * the signaller bumps the number (a seq_cst RMW) before it reads the count: either the sleeper
 * sees the new number, or the signaller sees the sleeper and wakes it. A waiter still polling
 * costs the signal no system call. */
#define _GNU_SOURCE
#include <limits.h>

#include "ext.h"
#include "../core/sys.h"

static void tm_cond_fire(void *cond, uintptr_t all)
{
    _Atomic uint32_t *seq = cond, *waiters = seq + 1;
    atomic_fetch_add_explicit(seq, 1, memory_order_seq_cst);
    if (atomic_load_explicit(waiters, memory_order_seq_cst))
        tm_futex_wake(seq, all ? INT_MAX : 1);
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

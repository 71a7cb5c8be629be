/* Lock groups inside a transaction (group_tx.c): waiting for a group another thread holds
 * exclusively.
 *
 * An attempt that can still roll back never waits inside: it rolls back (giving up what it took
 * in the attempt, and the serial lock if it held it), sleeps on the group's state word until the
 * writer is done, and runs again as a new first attempt, as a tm_retry wait does (core's
 * tm_restart_waiting). It still holds what it took before the transaction began, which the one
 * order of groups covers.
 *
 * A transaction that can no longer roll back (it went irrevocable: a relaxed transaction after
 * an unsafe call, a lock inside one, every transaction under serialirr, the serial fallback or
 * the single-thread bias) has to wait where it is, holding the serial lock or the bias: every
 * other thread's transaction waits for it meanwhile. That is a deadlock if the group's holder
 * begins a transaction before it gives the group up (LockSTM's non-revocable section calling a
 * function whose section is a transaction), or waits for a group this transaction holds.
 * - A writer whose tm_group_lock has not returned yet has touched none of its groups' data,
 *   and a reader its drain waits for may be a thread between its tm_group_enter and its
 *   transaction's begin, waiting for us, or this transaction itself: the waiter marks itself
 *   (ext.gblocked = the group | 1), and a drain that has waited a while for a call one of whose
 *   groups is so marked gives up what the call took and tries again once the waiter is in
 *   (group.c: tm_group_drain).
 * - A holder that is in cannot step back. It cannot be told apart from one about to give the
 *   group up by one look, so the wait looks every few milliseconds for a holder of the group
 *   that is inside a transaction's begin (its nesting above 0 while nothing but us can run: it
 *   waits for us) or that waits for one of our groups, and stops the program with a message
 *   once the same holder has looked so for a second (a holder merely passing through such a
 *   state, a commit's last steps, takes microseconds). Deadlocks through longer chains are not
 *   found: the wait then hangs, as a mutex's would.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <time.h>

#include "group_impl.h"
#include "../core/sys.h"
#include "../stats/stats.h"

#define TM_GROUP_DEADLOCK_NS 1000000000ull /* how long a holder must look stuck on us */
#define TM_GROUP_NAP_NS 2000000L           /* an irrevocable waiter looks this often */

static uint64_t tm_group_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Between the rollback and the next attempt (tm_restart_waiting): until the writer is done. */
static void tm_group_wait_sleep(tm_tx *tx)
{
    tm_ext_state *e = &tx->ext;
    tm_group_state *g = e->gwait;
    uint64_t t0 = TM_UNLIKELY(tm_stats_on) ? tm_stats_now() : 0;
    tm_group_blocked(e, g);
    tm_group_sleep(g);
    tm_group_blocked(e, NULL);
    e->gwait = NULL;
    if (t0)
        e->gwait_cycles += tm_stats_now() - t0; /* to the statistics of the call, when it is in */
}

/* Sleeps on g's state word for a few milliseconds at most, while it is held. */
static void tm_group_nap(tm_group_state *g)
{
    uint32_t s = atomic_load_explicit(g, memory_order_relaxed);
    if (!(s & TM_GROUP_HELD))
        return;
    /* relaxed: as tm_group_sleep, the futex compares the word again in the kernel. */
    if (!(s & TM_GROUP_SLEEPERS) &&
        !atomic_compare_exchange_strong_explicit(g, &s, s | TM_GROUP_SLEEPERS, memory_order_relaxed,
                                                 memory_order_relaxed))
        return; /* it changed: look again */
    struct timespec ts = {0, TM_GROUP_NAP_NS};
    tm_sys6(SYS_futex, (long)g, FUTEX_WAIT_PRIVATE, s | TM_GROUP_SLEEPERS, (long)&ts, 0, 0);
}

/* The mark of an irrevocable transaction's wait for g in ext.gblocked (groups are aligned). */
#define TM_GROUP_IRREV_MARK(g) ((tm_group_state *)((uintptr_t)(g) | 1))

bool tm_group_irrevocable_waiter(tm_tx *self, tm_group_state *const *gs, int n)
{
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_acquire)) {
        /* relaxed: a hint; a writer that misses a mark just set looks again a moment later */
        tm_group_state *b = atomic_load_explicit(&t->ext.gblocked, memory_order_relaxed);
        for (int k = 0; t != self && k < n; k++)
            if (b == TM_GROUP_IRREV_MARK(gs[k]))
                return true;
    }
    return false;
}

/* Does self hold g (a slot of its own names it)? relaxed: its own slots. */
static bool tm_group_mine(tm_tx *self, tm_group_state *g)
{
    for (int i = 0; i < TM_GROUPS_HELD; i++)
        if (tm_group_used(&self->ext, i) &&
            atomic_load_explicit(&self->ext.gslot[i], memory_order_relaxed) == g)
            return true;
    return false;
}

/* A thread that holds g and looks as if it waited for self (see the top), or NULL; *sig tells
 * one such look from another, *why what it waits for. The other thread's nesting and id are
 * plain fields of its own: read with relaxed atomic loads, as hints. */
static tm_tx *tm_group_stuck_holder(tm_tx *self, tm_group_state *g, uint64_t *sig,
                                    tm_group_state **why)
{
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_acquire)) {
        if (t == self)
            continue;
        bool holds = false;
        for (int i = 0; i < TM_GROUPS_HELD && !holds; i++)
            holds = atomic_load_explicit(&t->ext.gslot[i], memory_order_relaxed) == g;
        if (!holds)
            continue;
        if (__atomic_load_n(&t->nesting, __ATOMIC_RELAXED)) {
            *sig = (uint64_t)__atomic_load_n(&t->id, __ATOMIC_RELAXED) << 1 | 1;
            *why = NULL;
            return t;
        }
        tm_group_state *b = (tm_group_state *)((uintptr_t)atomic_load_explicit(
                                                    &t->ext.gblocked, memory_order_relaxed) &
                                                ~(uintptr_t)1);
        if (b && tm_group_mine(self, b)) {
            *sig = (uintptr_t)b;
            *why = b;
            return t;
        }
    }
    return NULL;
}

/* An irrevocable transaction's wait: returns once g's held bit is clear. */
static void tm_group_wait_irrevocable(tm_tx *tx, tm_group_state *g, const char *op)
{
    tm_ext_state *e = &tx->ext;
    uint64_t t0 = TM_UNLIKELY(tm_stats_on) ? tm_stats_now() : 0;
    tm_tx *suspect = NULL;
    uint64_t mark = 0, since = 0;
    tm_group_blocked(e, TM_GROUP_IRREV_MARK(g));
    while (atomic_load_explicit(g, memory_order_relaxed) & TM_GROUP_HELD) {
        tm_group_nap(g);
        uint64_t sig = 0;
        tm_group_state *why = NULL;
        tm_tx *t = tm_group_stuck_holder(tx, g, &sig, &why);
        uint64_t now = tm_group_now_ns();
        if (!t || t != suspect || sig != mark) {
            suspect = t;
            mark = sig;
            since = now;
            continue;
        }
        if (now - since < TM_GROUP_DEADLOCK_NS)
            continue;
        if (why)
            tm_fatal("%s inside a transaction that can no longer roll back (irrevocable): group "
                     "%p is held by a thread that waits for group %p, which this transaction "
                     "holds: a deadlock. A transaction that may run irrevocably must not wait for "
                     "a group (docs/groups.md, \"Inside a transaction\")",
                     op, (void *)g, (void *)why);
        tm_fatal("%s inside a transaction that can no longer roll back (irrevocable): group %p is "
                 "held by a thread that is beginning a transaction of its own, which waits for "
                 "this one to end: a deadlock. A thread holding a group must not begin a "
                 "transaction while a transaction that may run irrevocably waits for the group "
                 "(docs/groups.md, \"Inside a transaction\")", op, (void *)g);
    }
    /* The mark stays until the caller is in (tm_group_take_tx): a writer that stepped back for
     * us does not take the group again in between. */
    if (t0)
        e->gwait_cycles += tm_stats_now() - t0;
}

void tm_group_wait_tx(tm_tx *tx, tm_group_state *g, const char *op)
{
    if (!(tx->flags & TM_F_IRREVOCABLE)) {
        tx->ext.gwait = g;
        tm_restart_waiting(tx, tm_group_wait_sleep); /* never returns */
    }
    tm_group_wait_irrevocable(tx, g, op);
}

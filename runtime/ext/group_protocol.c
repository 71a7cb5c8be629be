/* Lock groups (group.c): the protocol on a group's state word and the threads' slots.
 *
 * The shared mode writes no shared cache line. A reader publishes the group in a slot of its
 * own descriptor (ext.gslot) and then checks the group's state word: not held, it is in. A
 * writer sets the state's held bit, forces a full barrier on every thread of the process
 * (membarrier, core/bias.c: tm_barrier_all) and then waits until no descriptor's slot names the
 * group. This is the asymmetric Dekker pattern of userspace RCU: the frequent side (a
 * transaction entering its group) pays a store, a compiler barrier and a load; the rare side (a
 * non-revocable section) a system call and a scan of the descriptors. Without membarrier both
 * sides fence (seq_cst). A reader that finds the group held clears its slot and sleeps on the
 * state word (futex) until the holder leaves, so a waiting writer is never starved by readers
 * arriving after it; the writers of one group take turns on the state word. A group's first
 * reader marks the state (TM_GROUP_SHARED, by a read-modify-write ordered with the writers'):
 * until then a writer skips the barrier and the scan, as there is nobody to drain.
 * A thread that waits says for what (ext.gblocked), for the deadlock check of a transaction
 * that can no longer roll back (group_wait.c), and a writer's drain steps back for such a
 * transaction (group.c: tm_group_drain). The writer's side is in group.c, inlined into the
 * call that takes the groups.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <time.h>

#include "group_impl.h"
#include "../core/sys.h"

/* Sleeps until the held bit is clear (it was set when looked at). */
void tm_group_sleep(tm_group_state *g)
{
    uint32_t s = atomic_load_explicit(g, memory_order_relaxed);
    while (s & TM_GROUP_HELD) {
        /* relaxed: the futex compares the word again in the kernel; acquire comes from the
         * caller's next attempt. */
        if (!(s & TM_GROUP_SLEEPERS) &&
            !atomic_compare_exchange_weak_explicit(g, &s, s | TM_GROUP_SLEEPERS,
                                                   memory_order_relaxed, memory_order_relaxed))
            continue;
        tm_futex_wait(g, s | TM_GROUP_SLEEPERS);
        s = atomic_load_explicit(g, memory_order_relaxed);
    }
}

/* What the thread waits for (ext.gblocked), for an irrevocable transaction's deadlock check
 * (group_wait.c). relaxed: a hint, which the check confirms by looking again much later. */
void tm_group_blocked(tm_ext_state *e, tm_group_state *g)
{
    atomic_store_explicit(&e->gblocked, g, memory_order_relaxed);
}

void tm_group_enter_one(tm_ext_state *e, int slot, tm_group_state *g)
{
    while (!tm_group_publish(e, slot, g)) {
        tm_group_blocked(e, g);
        tm_group_sleep(g);
        tm_group_blocked(e, NULL);
    }
}

/* The first reader of a group: its slot is published; the shared bit goes in by an atomic
 * read-modify-write of the state, which is ordered with the writers' (they set the held bit the
 * same way): a writer whose compare-and-swap came first holds the group and we step back; one
 * that comes after sees the bit and drains, and finds our slot, which was stored before. */
bool tm_group_first_shared(tm_group_state *g, uint32_t s)
{
    while (!(s & TM_GROUP_HELD)) {
        if (s & TM_GROUP_SHARED)
            return true;
        /* seq_cst: a full barrier after our slot's store (the writer's half is its own
         * read-modify-write); acquire on failure, as the load it replaces. */
        if (atomic_compare_exchange_weak_explicit(g, &s, s | TM_GROUP_SHARED, memory_order_seq_cst,
                                                  memory_order_acquire))
            return true;
    }
    return false;
}

void tm_group_unlock_one(tm_group_state *g)
{
    /* release: the section's writes happen-before the next holder's or reader's acquire. The
     * shared bit stays. */
    uint32_t old = atomic_fetch_and_explicit(g, TM_GROUP_SHARED, memory_order_release);
    if (old & TM_GROUP_SLEEPERS)
        tm_futex_wake(g, INT_MAX);
}

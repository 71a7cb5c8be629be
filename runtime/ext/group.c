/* Lock groups (include/tmkit/group.h): LockSTM at run time.
 *
 * Follows Kuilema's LockSTM (a lock-aware STM): the data that a non-revocable section touches
 * (I/O, system calls, unknown code) form groups; the non-revocable section runs holding its
 * groups exclusively, as plain code; the transactions that share data with it enter those
 * groups in shared mode before they begin; every other transaction runs speculatively with no
 * lock at all, and no transaction has to go serial-irrevocable for the section's sake.
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
 * arriving after it; the writers of one group take turns on the state word.
 *
 * Several groups are always taken in one order, their addresses', whatever order the call names
 * them in, so that nothing deadlocks; a call that would take a group below one the thread
 * already holds (an order only a second call can create) is refused with a message. A thread
 * holds at most TM_GROUPS_HELD groups at once. Entering a group already held (in either mode)
 * nests; locking a group held only in shared mode would wait for itself and is refused.
 * Groups are private to a process (their readers are found through the process's descriptors).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <time.h>

#include "group_impl.h"
#include "../core/sys.h"
#include "../stats/stats.h"

/* Sleeps until the held bit is clear (it was set when looked at). */
static void tm_group_sleep(tm_group_state *g)
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

static tm_tx *tm_group_caller(const char *op)
{
    tm_tx *tx = tm_self();
    if (TM_UNLIKELY(tx->nesting))
        tm_fatal("%s inside a transaction: take lock groups before the transaction begins", op);
    return tx;
}

/* Shared mode: publish, then check for a writer (the frequent side of the handshake). */
void tm_group_enter_one(tm_ext_state *e, int slot, tm_group_state *g)
{
    for (;;) {
        /* relaxed store + the barrier below: the writer's membarrier (or, without one, the
         * two seq_cst fences) orders this store before its scan, or our load after its set. */
        atomic_store_explicit(&e->gslot[slot], g, memory_order_relaxed);
        if (tm_barrier_asymmetric())
            atomic_signal_fence(memory_order_seq_cst);
        else
            atomic_thread_fence(memory_order_seq_cst);
        /* acquire: the section's reads of the group's data come after the previous holder's
         * release (tm_group_unlock). */
        if (!(atomic_load_explicit(g, memory_order_acquire) & TM_GROUP_HELD))
            return;
        /* A writer holds it or drains: step back, so it is not waiting for us, and sleep. */
        atomic_store_explicit(&e->gslot[slot], NULL, memory_order_relaxed);
        tm_group_sleep(g);
    }
}

/* Exclusive mode: one writer at a time on the state word, then drain the readers. */
static void tm_group_lock_one(tm_tx *self, tm_group_state *g)
{
    uint32_t s = atomic_load_explicit(g, memory_order_relaxed);
    for (;;) {
        if (s & TM_GROUP_HELD) {
            tm_group_sleep(g);
            s = atomic_load_explicit(g, memory_order_relaxed);
            continue;
        }
        /* seq_cst: the writer's half of the handshake when there is no membarrier. */
        if (atomic_compare_exchange_weak_explicit(g, &s, s | TM_GROUP_HELD, memory_order_seq_cst,
                                                  memory_order_relaxed))
            break;
    }
    if (!tm_barrier_asymmetric())
        atomic_thread_fence(memory_order_seq_cst);
    else if (!tm_barrier_all()) /* readers fence with a compiler barrier only */
        tm_fatal("membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) failed after registration");
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_acquire)) {
        if (t == self)
            continue;
        for (int i = 0; i < TM_GROUPS_HELD; i++) {
            /* acquire: the reader's transaction (its writes to the group's data) happened
             * before its slot was cleared (release in tm_group_exit). */
            for (unsigned k = 0; atomic_load_explicit(&t->ext.gslot[i], memory_order_acquire) == g; k++) {
                if (k < 1000) {
                    tm_cpu_relax(k);
                } else {
                    struct timespec ts = {0, k < 2000 ? 20000 : 200000};
                    nanosleep(&ts, NULL);
                }
            }
        }
    }
}

void tm_group_unlock_one(tm_group_state *g)
{
    /* release: the section's writes happen-before the next holder's or reader's acquire. */
    uint32_t old = atomic_exchange_explicit(g, 0, memory_order_release);
    if (old & TM_GROUP_SLEEPERS)
        tm_futex_wake(g, INT_MAX);
}

static void tm_group_take(void *const *list, bool exclusive, uintptr_t pc)
{
    const char *op = exclusive ? "tm_group_lock" : "tm_group_enter";
    tm_tx *tx = tm_group_caller(op);
    tm_ext_state *e = &tx->ext;
    tm_group_state *gs[TM_GROUPS_HELD];
    int n = tm_group_sort(list, gs);
    uint64_t t0 = TM_UNLIKELY(tm_stats_on) ? tm_stats_now() : 0;
    for (int k = 0; k < n; k++) {
        int i = tm_group_find(e, gs[k]);
        if (i >= 0) { /* nested */
            if (exclusive && !e->gexcl[i])
                tm_fatal("tm_group_lock: group %p is held in shared mode by this thread (from "
                         "tm_group_enter): it would wait for itself", (void *)gs[k]);
            e->gdepth[i]++;
            continue;
        }
        i = tm_group_free_slot(e, gs[k], op);
        if (exclusive) {
            tm_group_lock_one(tx, gs[k]);
            /* relaxed: the slot of an exclusive holder is only for its own bookkeeping
             * (writers skip their own descriptor and the state word excludes the others). */
            atomic_store_explicit(&e->gslot[i], gs[k], memory_order_relaxed);
        } else {
            tm_group_enter_one(e, i, gs[k]);
        }
        e->gexcl[i] = exclusive;
        e->gdepth[i] = 1;
        e->gsite[i] = pc;
    }
    if (TM_UNLIKELY(tm_stats_on)) {
        uint64_t t1 = tm_stats_now();
        tm_stats_group(tx, pc, exclusive, t1 - t0);
        for (int i = 0; i < TM_GROUPS_HELD; i++)
            if (e->gdepth[i] == 1 && e->gsite[i] == pc)
                e->gsince[i] = t1;
    }
}

static void tm_group_give(void *const *list, bool exclusive)
{
    const char *op = exclusive ? "tm_group_unlock" : "tm_group_exit";
    tm_tx *tx = tm_group_caller(op);
    tm_ext_state *e = &tx->ext;
    tm_group_state *gs[TM_GROUPS_HELD];
    int n = tm_group_sort(list, gs);
    for (int k = n; k-- > 0;) {
        int i = tm_group_find(e, gs[k]);
        if (i < 0)
            tm_fatal("%s: group %p is not held by this thread", op, (void *)gs[k]);
        if (e->gexcl[i] != exclusive && e->gdepth[i] == 1)
            tm_fatal("%s: group %p was taken by %s", op, (void *)gs[k],
                     e->gexcl[i] ? "tm_group_lock" : "tm_group_enter");
        if (--e->gdepth[i])
            continue;
        if (e->gexcl[i]) {
            atomic_store_explicit(&e->gslot[i], NULL, memory_order_relaxed);
            if (TM_UNLIKELY(tm_stats_on) && e->gsince[i])
                tm_stats_group_held(tx, e->gsite[i], tm_stats_now() - e->gsince[i]);
            e->gsince[i] = 0;
            tm_group_unlock_one(gs[k]);
        } else {
            /* release: the transaction that ran in the group happens-before the writer that
             * sees the slot empty (its acquire load in tm_group_lock_one). */
            atomic_store_explicit(&e->gslot[i], NULL, memory_order_release);
        }
        tm_group_free(e, i);
    }
}

/* The statistics' site of a call: inside the call instruction, so that it maps to the call's
 * line (the return address may belong to the next one). */
#define TM_GROUP_CALLER ((uintptr_t)__builtin_return_address(0) - 1)

/* The common case: one group, shared, by a thread that holds none. */
TM_EXPORT void tmkit_group_enter(void *const *groups)
{
    tm_tx *tx = tm_self();
    tm_ext_state *e = &tx->ext;
    if (TM_LIKELY(groups[0] && !groups[1] && !e->gheld && !tx->nesting && !tm_stats_on)) {
        tm_group_enter_one(e, 0, groups[0]);
        e->gexcl[0] = false;
        e->gdepth[0] = 1;
        e->gheld = 1;
        e->gmax = (uintptr_t)groups[0];
        return;
    }
    tm_group_take(groups, false, TM_GROUP_CALLER);
}

TM_EXPORT void tmkit_group_exit(void *const *groups)
{
    tm_tx *tx = tm_self();
    tm_ext_state *e = &tx->ext;
    if (TM_LIKELY(groups[0] && !groups[1] && e->gheld == 1 && e->gdepth[0] == 1 && !e->gexcl[0] &&
                  atomic_load_explicit(&e->gslot[0], memory_order_relaxed) == groups[0] &&
                  !tx->nesting)) {
        /* release: as in tm_group_give */
        atomic_store_explicit(&e->gslot[0], NULL, memory_order_release);
        e->gdepth[0] = 0;
        e->gheld = 0;
        e->gmax = 0;
        return;
    }
    tm_group_give(groups, false);
}

TM_EXPORT void tmkit_group_lock(void *const *groups)
{
    tm_group_take(groups, true, TM_GROUP_CALLER);
}

TM_EXPORT void tmkit_group_unlock(void *const *groups)
{
    tm_group_give(groups, true);
}

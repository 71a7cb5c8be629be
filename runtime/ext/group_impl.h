/* Lock groups: what group.c (the calls), group_protocol.c (the state word and the slots),
 * group_held.c (a thread's held groups), group_tx.c (the calls inside a transaction) and
 * group_wait.c (their waits) share. */
#ifndef TMKIT_EXT_GROUP_IMPL_H
#define TMKIT_EXT_GROUP_IMPL_H

#include "ext.h"

#define TM_GROUP_HELD 1u    /* state: a writer holds it (or is draining its readers) */
#define TM_GROUP_SLEEPERS 2u /* state: somebody sleeps on the state word */
/* state: entered in shared mode at least once, so a writer must drain the readers; never
 * cleared. A group only ever locked (memcached's lru_maintainer_lock, taken by its background
 * thread about 2,400 times a second under load) then costs a writer a compare-and-swap, not a
 * membarrier (an interrupt on every CPU running the process) and a scan of the descriptors. */
#define TM_GROUP_SHARED 4u

/* ext.gend: what the end of the running transaction does with a slot. */
#define TM_GEND_NEW 1u    /* taken inside it: given up at its end (if still taken, kept) */
#define TM_GEND_LINGER 2u /* taken before it, given back to depth 0 inside it: given up at its
                           * commit, taken again by its rollback */

/* tm_group_t's first word (include/tmkit/group.h); the rest is the libitm fallback's. */
typedef _Atomic uint32_t tm_group_state;

/* A slot is in use while its group is held, or given back inside a transaction that has not
 * ended yet (the hold lasts until it does). */
static inline bool tm_group_used(const tm_ext_state *e, int i)
{
    return e->gdepth[i] || e->gend[i];
}

/* group_protocol.c: the group's first shared entry sets TM_GROUP_SHARED; false if a writer
 * holds it meanwhile. */
TM_HIDDEN bool tm_group_first_shared(tm_group_state *g, uint32_t s);

/* Shared mode, one try into slot `slot`: publish, then check for a writer (the frequent side of
 * the handshake, group_protocol.c). True if in; false (the slot cleared again) if a writer holds
 * the group or drains. */
static inline bool tm_group_publish(tm_ext_state *e, int slot, tm_group_state *g)
{
    /* relaxed store + the barrier below: the writer's membarrier (or, without one, the two
     * seq_cst fences) orders this store before its scan, or our load after its set. */
    atomic_store_explicit(&e->gslot[slot], g, memory_order_relaxed);
    if (tm_barrier_asymmetric())
        atomic_signal_fence(memory_order_seq_cst);
    else
        atomic_thread_fence(memory_order_seq_cst);
    /* acquire: the section's reads of the group's data come after the previous holder's
     * release (tm_group_unlock). */
    uint32_t s = atomic_load_explicit(g, memory_order_acquire);
    if (TM_LIKELY((s & (TM_GROUP_HELD | TM_GROUP_SHARED)) == TM_GROUP_SHARED))
        return true;
    if (!(s & TM_GROUP_HELD) && tm_group_first_shared(g, s))
        return true;
    /* A writer holds it or drains: step back, so it is not waiting for us. */
    atomic_store_explicit(&e->gslot[slot], NULL, memory_order_relaxed);
    return false;
}

/* The list a call names, sorted by address into out, NULLs and repeats dropped; returns how
 * many. Inline: every call of the API sorts its list, mostly of one to five groups. */
static inline int tm_group_sort(void *const *list, tm_group_state **out)
{
    int n = 0;
    for (void *const *p = list; *p; p++) {
        if (TM_UNLIKELY(n == TM_GROUPS_HELD))
            tm_fatal("tm_group: more than %d groups in one call", TM_GROUPS_HELD);
        tm_group_state *g = *p;
        int i = n;
        while (i > 0 && out[i - 1] > g)
            i--;
        if (i > 0 && out[i - 1] == g)
            continue;
        for (int k = n; k > i; k--)
            out[k] = out[k - 1];
        out[i] = g;
        n++;
    }
    return n;
}

/* group_held.c */
TM_HIDDEN int tm_group_find(tm_ext_state *e, tm_group_state *g);     /* the slot, or -1 */
TM_HIDDEN int tm_group_free_slot(tm_ext_state *e, tm_group_state *g, const char *op);
TM_HIDDEN void tm_group_free(tm_ext_state *e, int i);
TM_HIDDEN void tm_group_order_check(tm_ext_state *e, tm_group_state *g, const char *op);
/* group_protocol.c: takes g in shared mode into slot `slot` (waits while a writer holds it). */
TM_HIDDEN void tm_group_enter_one(tm_ext_state *e, int slot, tm_group_state *g);
/* group_protocol.c: what the thread waits for (ext.gblocked; NULL: nothing), for group_wait.c. */
TM_HIDDEN void tm_group_blocked(tm_ext_state *e, tm_group_state *g);
/* group_protocol.c: sleeps until g's held bit is clear. */
TM_HIDDEN void tm_group_sleep(tm_group_state *g);
/* group.c: after self set the held bit, waits until no other thread holds g in shared mode (a
 * lock taken inside a transaction and held on after it). */
TM_HIDDEN void tm_group_settle(tm_tx *self, tm_group_state *g);
/* group_protocol.c: gives up an exclusive hold, waking the sleepers. */
TM_HIDDEN void tm_group_unlock_one(tm_group_state *g);
/* group.c: gives slot i's group up now (shared or exclusive) and frees the slot. */
TM_HIDDEN void tm_group_release(tm_tx *tx, int i);

/* group_tx.c: tm_group_enter/lock and exit/unlock inside a transaction (tx->nesting > 0);
 * `frame` is the exported function's frame (the switch to irrevocable needs it). */
TM_HIDDEN void tm_group_take_tx(tm_tx *tx, void *const *list, bool exclusive, uintptr_t pc,
                                uintptr_t frame);
TM_HIDDEN void tm_group_give_tx(tm_tx *tx, void *const *list, bool exclusive);

/* group_wait.c: g is held exclusively by another thread and tx, inside a transaction, needs it:
 * a transaction that can still roll back does, sleeps until g is free and runs again (never
 * returns); an irrevocable one waits here, or stops the program if the holder waits for it. */
TM_HIDDEN void tm_group_wait_tx(tm_tx *tx, tm_group_state *g, const char *op);

/* group_wait.c: does a transaction that can no longer roll back wait for one of the n groups? */
TM_HIDDEN bool tm_group_irrevocable_waiter(tm_tx *self, tm_group_state *const *gs, int n);

/* core/txn.c (wait.c declares it too): roll back, call sleep, run the transaction again. */
TM_HIDDEN __attribute__((noreturn)) void tm_restart_waiting(tm_tx *tx, void (*sleep)(tm_tx *));

#endif

/* Lock groups inside a transaction: the calls compose across functions.
 *
 * `tmkit advise` rewrites a lock-based section as a transaction inside tm_group_enter/exit (or as
 * plain code inside tm_group_lock/unlock), so a rewritten function called from inside another
 * rewritten section makes its group calls inside the caller's transaction. There they behave as
 * a nested transaction does: flattened into the caller's.
 *
 * - tm_group_enter: a group the thread holds already (either mode) nests. Any other group is
 *   *joined* in shared mode, as outside (the slot published, then the state word checked), but
 *   without ever blocking: if a writer holds it or drains for it, the attempt rolls back (which
 *   gives back what it joined), sleeps until the group is free and runs again (group_wait.c).
 *   A transaction that can no longer roll back (irrevocable) has to wait where it is instead.
 * - Whatever a transaction takes stays held until it ends: given up after its commit (its writes
 *   are complete before a writer can look) and at every rollback. tm_group_exit inside it only
 *   drops the count (TM_GEND_*), so a transaction that calls two functions entering the same
 *   group reads the group's data under one hold, as a flattened transaction must.
 * - Every change is undone by an undo action, run by core in reverse order at a rollback of the
 *   whole attempt or of a nested transaction that cancels (closed nesting: its actions since its
 *   checkpoint); the commit action (one per transaction) gives up what is left at depth 0 after
 *   the commit. So the counts at the start of each attempt are those before the transaction.
 * - tm_group_lock: the section is non-revocable plain code (I/O). A new group is taken "against
 *   writers only" (the held bit, with no drain of the shared holders), then the transaction goes
 *   serial-irrevocable, which waits for every transaction to end and lets none begin: the shared
 *   holders are transactions, and a thread between its tm_group_enter and its transaction's
 *   begin touches none of the group's data. tm_group_unlock inside gives the group up at once
 *   if nothing can roll the transaction back any more; one still held when the transaction ends
 *   is then drained as tm_group_lock does (without stepping back: its data was touched), before
 *   the thread goes on.
 * - The one order of groups (group_held.c) binds what a thread took before the transaction:
 *   those stay held while a rolled-back attempt sleeps. What the attempt joined it gives back
 *   first, so among those any order is safe.
 * The list a call names is read through the transaction's barrier: GCC's instrumented code
 * writes the compound literal through write barriers (buffered by the redo-log algorithms).
 */
#include "group_impl.h"
#include "../stats/stats.h"

/* An undo action's record: the slot, what to undo, its mark and depth before the change. */
#define TM_GU_DEPTH 0u  /* the depth and the mark changed: restore them */
#define TM_GU_TAKEN 1u  /* the slot was taken: give it up */
#define TM_GU_COMMIT 0x1000u /* this change registered the commit action */

static uintptr_t tm_gu_aux(int i, unsigned kind, unsigned gend, uint32_t depth)
{
    return (uintptr_t)i | kind << 4 | gend << 8 | (uint64_t)depth << 32;
}

/* Undo action: puts slot (aux & 15) back as it was before one change. */
static void tm_group_undo(void *arg, uintptr_t aux)
{
    tm_tx *tx = arg;
    tm_ext_state *e = &tx->ext;
    int i = (int)(aux & 15);
    if (aux & TM_GU_COMMIT)
        e->gcommit = false; /* the commit action went with the rolled-back part */
    if (((aux >> 4) & 15) == TM_GU_TAKEN) {
        e->gend[i] = 0;
        tm_group_release(tx, i);
        return;
    }
    e->gdepth[i] = (uint32_t)(aux >> 32);
    e->gend[i] = (uint8_t)((aux >> 8) & 15);
}

/* Commit action, after the commit: gives up what the transaction left at depth 0; a group
 * locked inside it and still held is drained (its other shared holders leave) before the thread
 * goes on with it as plain code. */
static void tm_group_commit(void *arg, uintptr_t aux)
{
    (void)aux;
    tm_tx *tx = arg;
    tm_ext_state *e = &tx->ext;
    e->gcommit = false;
    for (int i = 0; i < TM_GROUPS_HELD; i++) {
        unsigned end = e->gend[i];
        if (!end)
            continue;
        e->gend[i] = 0;
        if (!e->gdepth[i]) {
            tm_group_release(tx, i);
            continue;
        }
        tm_group_state *g = atomic_load_explicit(&e->gslot[i], memory_order_relaxed);
        if ((end & TM_GEND_NEW) && e->gexcl[i])
            tm_group_settle(tx, g);
        /* held on as a plain hold: part of the order from now on */
        e->gmax = (uintptr_t)g > e->gmax ? (uintptr_t)g : e->gmax;
    }
}

/* Can the state the call changes still be rolled back (an attempt that may restart, or a
 * nested transaction opened after the switch to irrevocable that may cancel)? */
static bool tm_group_revocable(const tm_tx *tx)
{
    return !(tx->flags & TM_F_IRREVOCABLE) || tx->n_cps > tx->irrevocable_cps;
}

/* Records how to undo a change of slot i before it is made (kind TM_GU_DEPTH), or after a
 * slot was taken (TM_GU_TAKEN), and registers the commit action once per transaction. */
static void tm_group_log(tm_tx *tx, int i, unsigned kind)
{
    tm_ext_state *e = &tx->ext;
    uintptr_t aux = tm_gu_aux(i, kind, e->gend[i], e->gdepth[i]);
    if (!e->gcommit) {
        tm_action_add(tx, TM_ACT_COMMIT_USER, tm_group_commit, tx, 0);
        e->gcommit = true;
        aux |= TM_GU_COMMIT;
    }
    if (tm_group_revocable(tx))
        tm_action_add(tx, TM_ACT_UNDO_USER, tm_group_undo, tx, aux);
}

/* The groups a call names, read through the transaction's barrier, sorted. */
static int tm_group_list_tx(tm_tx *tx, void *const *list, tm_group_state **out)
{
    void *buf[TM_GROUPS_HELD + 1];
    for (int n = 0;; n++) {
        if (n == TM_GROUPS_HELD + 1)
            tm_fatal("tm_group: more than %d groups in one call", TM_GROUPS_HELD);
        tx->disp->read(tx, &buf[n], &list[n], sizeof buf[n]);
        if (!buf[n])
            break;
    }
    return tm_group_sort(buf, out);
}

/* Exclusive against other writers only (see the top): the held bit. */
static void tm_group_lock_tx(tm_tx *tx, tm_group_state *g)
{
    uint32_t s = atomic_load_explicit(g, memory_order_relaxed);
    for (;;) {
        if (s & TM_GROUP_HELD) {
            tm_group_wait_tx(tx, g, "tm_group_lock");
            s = atomic_load_explicit(g, memory_order_relaxed);
            continue;
        }
        /* acquire: the section's plain accesses come after the previous writer's release
         * (tm_group_unlock_one); the transactions that share the group are excluded by the
         * serial lock, whose drain orders their commits before us. */
        if (atomic_compare_exchange_weak_explicit(g, &s, s | TM_GROUP_HELD, memory_order_acquire,
                                                  memory_order_relaxed))
            return;
    }
}

void tm_group_take_tx(tm_tx *tx, void *const *list, bool exclusive, uintptr_t pc, uintptr_t frame)
{
    const char *op = exclusive ? "tm_group_lock" : "tm_group_enter";
    if (tx->flags & TM_F_HTM)
        tm_htm_abort(); /* the software path runs it again */
    tm_ext_state *e = &tx->ext;
    tm_group_state *gs[TM_GROUPS_HELD];
    int n = tm_group_list_tx(tx, list, gs);
    uint64_t t0 = TM_UNLIKELY(tm_stats_on) ? tm_stats_now() : 0;
    bool fresh = false; /* a group newly held exclusively: the transaction goes irrevocable */
    for (int k = 0; k < n; k++) {
        tm_group_state *g = gs[k];
        int i = tm_group_find(e, g);
        if (i >= 0) { /* held already: nests */
            if (exclusive && !e->gexcl[i])
                tm_fatal("tm_group_lock inside a transaction: group %p is held in shared mode by "
                         "this thread (tm_group_enter, in this transaction or before it): it would "
                         "wait for itself; lock it in the outer section instead", (void *)g);
            tm_group_log(tx, i, TM_GU_DEPTH);
            e->gdepth[i]++;
            continue;
        }
        tm_group_order_check(e, g, op);
        i = 0;
        while (tm_group_used(e, i))
            i++;
        if (exclusive) {
            tm_group_lock_tx(tx, g);
            /* relaxed: an exclusive holder's slot is its own bookkeeping (group.c) */
            atomic_store_explicit(&e->gslot[i], g, memory_order_relaxed);
            fresh = true;
        } else {
            while (!tm_group_publish(e, i, g))
                tm_group_wait_tx(tx, g, op);
        }
        /* relaxed: our own word; an irrevocable wait's mark stays until we are in (group_wait.c) */
        if (atomic_load_explicit(&e->gblocked, memory_order_relaxed))
            tm_group_blocked(e, NULL);
        e->gexcl[i] = exclusive;
        e->gdepth[i] = 1;
        e->gend[i] = TM_GEND_NEW;
        e->gsite[i] = pc;
        e->gsince[i] = 0;
        e->gheld++;
        tm_group_log(tx, i, TM_GU_TAKEN);
    }
    if (TM_UNLIKELY(tm_stats_on)) {
        uint64_t t1 = tm_stats_now();
        tm_stats_group(tx, pc, exclusive, t1 - t0 + e->gwait_cycles);
        e->gwait_cycles = 0;
        for (int i = 0; exclusive && i < TM_GROUPS_HELD; i++)
            if (e->gdepth[i] == 1 && e->gsite[i] == pc && (e->gend[i] & TM_GEND_NEW))
                e->gsince[i] = t1;
    }
    if (fresh) /* may restart: the rollback gives the groups back */
        tm_go_irrevocable(tx, frame, pc);
}

void tm_group_give_tx(tm_tx *tx, void *const *list, bool exclusive)
{
    const char *op = exclusive ? "tm_group_unlock" : "tm_group_exit";
    if (tx->flags & TM_F_HTM)
        tm_htm_abort();
    tm_ext_state *e = &tx->ext;
    tm_group_state *gs[TM_GROUPS_HELD];
    int n = tm_group_list_tx(tx, list, gs);
    for (int k = n; k-- > 0;) {
        int i = tm_group_find(e, gs[k]);
        if (i < 0 || !e->gdepth[i])
            tm_fatal("%s: group %p is not held by this thread", op, (void *)gs[k]);
        if (e->gexcl[i] != exclusive && e->gdepth[i] == 1)
            tm_fatal("%s: group %p was taken by %s", op, (void *)gs[k],
                     e->gexcl[i] ? "tm_group_lock" : "tm_group_enter");
        tm_group_log(tx, i, TM_GU_DEPTH);
        if (--e->gdepth[i])
            continue;
        if (e->gexcl[i] && !tm_group_revocable(tx)) {
            /* irrevocable: its writes are final, and the lock is given up at once */
            tm_group_release(tx, i);
        } else if (!e->gend[i]) {
            e->gend[i] = TM_GEND_LINGER; /* taken before the transaction: given up at its end */
        }
    }
}

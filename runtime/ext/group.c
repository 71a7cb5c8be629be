/* Lock groups (include/tmkit/group.h): LockSTM at run time.
 *
 * Follows Kuilema's LockSTM (a lock-aware STM): the data that a non-revocable section touches
 * (I/O, system calls, unknown code) form groups; the non-revocable section runs holding its
 * groups exclusively, as plain code; the transactions that share data with it enter those
 * groups in shared mode before they begin; every other transaction runs speculatively with no
 * lock at all, and no transaction has to go serial-irrevocable for the section's sake.
 *
 * This file: the calls outside transactions, the writer's side of the protocol (the held bit and
 * the drain of the readers) and the exported functions. The protocol and the readers' side:
 * group_protocol.c; a thread's held groups and the one order: group_held.c; the calls inside a
 * transaction, which compose with it: group_tx.c and group_wait.c.
 *
 * Several groups are always taken in one order, their addresses', whatever order the call names
 * them in, so that nothing deadlocks; a call that would take a group below one the thread
 * already holds (an order only a second call can create) is refused with a message. A thread
 * holds at most TM_GROUPS_HELD groups at once. Entering a group already held (in either mode)
 * nests; locking a group held only in shared mode would wait for itself and is refused.
 * Groups are private to a process (their readers are found through the process's descriptors).
 */
#define _GNU_SOURCE
#include <time.h>

#include "group_impl.h"
#include "../core/sys.h"
#include "../stats/stats.h"

/* Exclusive mode: one writer at a time on the state word (the held bit). */
static void tm_group_set_held(tm_tx *self, tm_group_state *g)
{
    uint32_t s = atomic_load_explicit(g, memory_order_relaxed);
    for (;;) {
        if (s & TM_GROUP_HELD) {
            tm_group_blocked(&self->ext, g);
            tm_group_sleep(g);
            tm_group_blocked(&self->ext, NULL);
            s = atomic_load_explicit(g, memory_order_relaxed);
            continue;
        }
        /* seq_cst: the writer's half of the handshake when there is no membarrier. */
        if (atomic_compare_exchange_weak_explicit(g, &s, s | TM_GROUP_HELD, memory_order_seq_cst,
                                                  memory_order_relaxed))
            return;
    }
}

/* The held bit is set (by self): wait until no other descriptor's slot names g. False, with the
 * bit still set, if a transaction that can no longer roll back waits for one of the `n` groups
 * `mine` that the running call took (group_wait.c): a reader we wait for may be a thread
 * between its tm_group_enter and its transaction's begin, which waits for that transaction. The
 * call has touched none of their data yet, so it steps back from them all (tm_group_take), as a
 * reader steps back for a writer. */
static inline __attribute__((always_inline)) bool tm_group_drain(tm_tx *self, tm_group_state *g,
                                                                 tm_group_state *const *mine, int n)
{
    /* relaxed: read after our own read-modify-write that set the held bit, so it sees at least
     * that value; the shared bit of a reader that came after we set it is not there, and that
     * reader steps back (group_protocol.c: tm_group_first_shared). */
    if (!(atomic_load_explicit(g, memory_order_relaxed) & TM_GROUP_SHARED))
        return true; /* never entered in shared mode: no reader to wait for */
    if (!tm_barrier_asymmetric())
        atomic_thread_fence(memory_order_seq_cst);
    else if (!tm_barrier_all()) /* readers fence with a compiler barrier only */
        tm_fatal("membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) failed after registration");
    bool in = true;
    for (tm_tx *t = tm_registry_head(); in && t; t = atomic_load_explicit(&t->next, memory_order_acquire)) {
        if (t == self)
            continue;
        for (int i = 0; in && i < TM_GROUPS_HELD; i++) {
            /* acquire: the reader's transaction (its writes to the group's data) happened
             * before its slot was cleared (release in tm_group_exit). */
            for (unsigned k = 0; atomic_load_explicit(&t->ext.gslot[i], memory_order_acquire) == g; k++) {
                if (k == 0)
                    tm_group_blocked(&self->ext, g);
                /* looked for from the first yield on: with more threads than cores a thousand
                 * yields can take seconds */
                if (k >= 64 && n && tm_group_irrevocable_waiter(self, mine, n)) {
                    in = false;
                    break;
                }
                if (k < 1000) {
                    tm_cpu_relax(k);
                } else {
                    struct timespec ts = {0, k < 2000 ? 20000 : 200000};
                    nanosleep(&ts, NULL);
                }
            }
        }
    }
    if (atomic_load_explicit(&self->ext.gblocked, memory_order_relaxed))
        tm_group_blocked(&self->ext, NULL);
    return in;
}

/* A lock taken inside a transaction and held on after its commit (group_tx.c): its data was
 * touched already, so no stepping back. */
void tm_group_settle(tm_tx *self, tm_group_state *g)
{
    tm_group_drain(self, g, NULL, 0);
}

/* Gives slot i's group up now and frees the slot (inlined into tm_group_give, which calls it
 * for each tm_group_unlock). */
static inline __attribute__((always_inline)) void tm_group_release_now(tm_tx *tx, int i)
{
    tm_ext_state *e = &tx->ext;
    tm_group_state *g = atomic_load_explicit(&e->gslot[i], memory_order_relaxed);
    if (e->gexcl[i]) {
        atomic_store_explicit(&e->gslot[i], NULL, memory_order_relaxed);
        if (TM_UNLIKELY(tm_stats_on) && e->gsince[i])
            tm_stats_group_held(tx, e->gsite[i], tm_stats_now() - e->gsince[i]);
        e->gsince[i] = 0;
        tm_group_unlock_one(g);
    } else {
        /* release: the transaction that ran in the group happens-before the writer that sees
         * the slot empty (its acquire load in tm_group_drain). */
        atomic_store_explicit(&e->gslot[i], NULL, memory_order_release);
    }
    tm_group_free(e, i);
}

void tm_group_release(tm_tx *tx, int i)
{
    tm_group_release_now(tx, i);
}

/* A lock call that steps back (tm_group_drain) gives up what it took, k down to 0 (taken[j]: the
 * slot it took for gs[j], or -1 where it nested), and waits until the irrevocable transaction
 * that waits for one of `fresh` is in. */
static void tm_group_back_out(tm_tx *tx, tm_group_state **gs, const int *taken, int k,
                              tm_group_state *const *fresh, int nf)
{
    tm_ext_state *e = &tx->ext;
    for (int j = k; j >= 0; j--) {
        if (taken[j] < 0) {
            e->gdepth[tm_group_find(e, gs[j])]--;
            continue;
        }
        atomic_store_explicit(&e->gslot[taken[j]], NULL, memory_order_relaxed);
        tm_group_unlock_one(gs[j]);
        tm_group_free(e, taken[j]);
    }
    while (tm_group_irrevocable_waiter(tx, fresh, nf)) {
        struct timespec ts = {0, 50000};
        nanosleep(&ts, NULL);
    }
}

static void tm_group_take(void *const *list, bool exclusive, uintptr_t pc, uintptr_t frame)
{
    const char *op = exclusive ? "tm_group_lock" : "tm_group_enter";
    tm_tx *tx = tm_self();
    if (TM_UNLIKELY(tx->nesting)) {
        tm_group_take_tx(tx, list, exclusive, pc, frame);
        return;
    }
    tm_ext_state *e = &tx->ext;
    tm_group_state *gs[TM_GROUPS_HELD], *fresh[TM_GROUPS_HELD];
    int taken[TM_GROUPS_HELD];
    int n = tm_group_sort(list, gs), nf;
    uint64_t t0 = TM_UNLIKELY(tm_stats_on) ? tm_stats_now() : 0;
again:
    nf = 0;
    for (int k = 0; k < n; k++) {
        int i = tm_group_find(e, gs[k]);
        taken[k] = -1;
        if (i >= 0) { /* nested */
            if (exclusive && !e->gexcl[i])
                tm_fatal("tm_group_lock: group %p is held in shared mode by this thread (from "
                         "tm_group_enter): it would wait for itself", (void *)gs[k]);
            e->gdepth[i]++;
            continue;
        }
        i = tm_group_free_slot(e, gs[k], op);
        taken[k] = i;
        e->gexcl[i] = exclusive;
        e->gdepth[i] = 1;
        e->gsite[i] = pc;
        if (!exclusive) {
            tm_group_enter_one(e, i, gs[k]);
            continue;
        }
        tm_group_set_held(tx, gs[k]);
        /* relaxed: the slot of an exclusive holder is only for its own bookkeeping (writers
         * skip their own descriptor and the state word excludes the others) and a hint for an
         * irrevocable waiter's deadlock check. */
        atomic_store_explicit(&e->gslot[i], gs[k], memory_order_relaxed);
        fresh[nf++] = gs[k];
        if (!tm_group_drain(tx, gs[k], fresh, nf)) {
            tm_group_back_out(tx, gs, taken, k, fresh, nf);
            goto again;
        }
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
    tm_tx *tx = tm_self();
    if (TM_UNLIKELY(tx->nesting)) {
        tm_group_give_tx(tx, list, exclusive);
        return;
    }
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
        if (--e->gdepth[i] == 0)
            tm_group_release_now(tx, i);
    }
}

/* The statistics' site of a call: inside the call instruction, so that it maps to the call's
 * line (the return address may belong to the next one). */
#define TM_GROUP_CALLER ((uintptr_t)__builtin_return_address(0) - 1)

/* The common case: groups entered in shared mode by a thread that holds none, outside a
 * transaction, statistics off. They go into slots 0..n-1 in address order, so the exit that
 * names the same list finds them there without a search (tmkit_group_exit). */
TM_EXPORT void tmkit_group_enter(void *const *groups)
{
    tm_tx *tx = tm_self();
    tm_ext_state *e = &tx->ext;
    if (TM_LIKELY(groups[0] && !e->gheld && !tx->nesting && !tm_stats_on)) {
        tm_group_state *gs[TM_GROUPS_HELD];
        int n = tm_group_sort(groups, gs);
        for (int k = 0; k < n; k++) {
            if (TM_UNLIKELY(!tm_group_publish(e, k, gs[k])))
                tm_group_enter_one(e, k, gs[k]); /* a writer holds it: wait, as the slow path */
            e->gexcl[k] = false;
            e->gdepth[k] = 1;
        }
        e->gheld = (uint32_t)n;
        e->gmax = (uintptr_t)gs[n - 1];
        return;
    }
    tm_group_take(groups, false, TM_GROUP_CALLER, 0); /* an enter never goes irrevocable */
}

/* The fast exit: exactly the groups of the fast enter, each in its slot, entered once. */
static inline bool tm_group_exit_fast(tm_ext_state *e, void *const *groups)
{
    tm_group_state *gs[TM_GROUPS_HELD];
    int n = tm_group_sort(groups, gs);
    if ((uint32_t)n != e->gheld)
        return false;
    for (int k = 0; k < n; k++)
        if (e->gdepth[k] != 1 || e->gexcl[k] ||
            atomic_load_explicit(&e->gslot[k], memory_order_relaxed) != gs[k])
            return false;
    for (int k = n; k-- > 0;) {
        /* release: as in tm_group_give */
        atomic_store_explicit(&e->gslot[k], NULL, memory_order_release);
        e->gdepth[k] = 0;
    }
    e->gheld = 0;
    e->gmax = 0;
    return true;
}

TM_EXPORT void tmkit_group_exit(void *const *groups)
{
    tm_tx *tx = tm_self();
    if (TM_LIKELY(groups[0] && !tx->nesting && tm_group_exit_fast(&tx->ext, groups)))
        return;
    tm_group_give(groups, false);
}

/* A lock inside a transaction may switch it to irrevocable, whose write-back must skip the
 * runtime's own frames: everything below this function's canonical frame address. */
TM_EXPORT void tmkit_group_lock(void *const *groups)
{
    tm_group_take(groups, true, TM_GROUP_CALLER, (uintptr_t)__builtin_dwarf_cfa());
}

TM_EXPORT void tmkit_group_unlock(void *const *groups)
{
    tm_group_give(groups, true);
}

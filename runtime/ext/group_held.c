/* Lock groups (group.c): the groups a thread holds, in its descriptor (ext.gslot, which
 * writers scan, and the owner's depth, mode, end-of-transaction mark and statistics per slot),
 * the one order of groups, and what happens to a thread's groups when it ends or the process
 * forks. */
#include "group_impl.h"

/* The thread's slot holding g, or -1. */
int tm_group_find(tm_ext_state *e, tm_group_state *g)
{
    if (!e->gheld)
        return -1;
    for (int i = 0; i < TM_GROUPS_HELD; i++)
        if (tm_group_used(e, i) && atomic_load_explicit(&e->gslot[i], memory_order_relaxed) == g)
            return i;
    return -1;
}

/* The order check: nothing new may sort below a group the thread held before (inside a
 * transaction: before the transaction began; gmax leaves out the groups taken inside it). */
void tm_group_order_check(tm_ext_state *e, tm_group_state *g, const char *op)
{
    if (TM_UNLIKELY(e->gmax > (uintptr_t)g))
        tm_fatal("%s: group %p is taken after group %p, against the one order of groups "
                 "(their addresses): take them in one call, or leave the later one first",
                 op, (void *)g, (void *)e->gmax);
    if (TM_UNLIKELY(e->gheld == TM_GROUPS_HELD))
        tm_fatal("%s: a thread may hold at most %d groups", op, TM_GROUPS_HELD);
}

/* A free slot for g, outside a transaction, after the order check. */
int tm_group_free_slot(tm_ext_state *e, tm_group_state *g, const char *op)
{
    tm_group_order_check(e, g, op);
    int i = 0;
    while (tm_group_used(e, i))
        i++;
    e->gheld++;
    e->gmax = (uintptr_t)g;
    return i;
}

/* Slot i is free again; gmax is the highest of the groups held but those taken inside the
 * running transaction. */
void tm_group_free(tm_ext_state *e, int i)
{
    e->gdepth[i] = 0;
    e->gend[i] = 0;
    e->gmax = 0;
    if (--e->gheld)
        for (int k = 0; k < TM_GROUPS_HELD; k++)
            if (tm_group_used(e, k) && !(e->gend[k] & TM_GEND_NEW)) {
                uintptr_t a = (uintptr_t)atomic_load_explicit(&e->gslot[k], memory_order_relaxed);
                e->gmax = a > e->gmax ? a : e->gmax;
            }
}

/* A thread that ends holding groups (as with a mutex, a bug of the program's) gives them up, so
 * the others can go on; its descriptor is reused by a later thread. */
void tm_groups_thread_exit(tm_tx *tx)
{
    tm_ext_state *e = &tx->ext;
    for (int i = 0; i < TM_GROUPS_HELD; i++) {
        if (!tm_group_used(e, i))
            continue;
        tm_group_state *g = atomic_load_explicit(&e->gslot[i], memory_order_relaxed);
        atomic_store_explicit(&e->gslot[i], NULL, memory_order_release);
        if (e->gexcl[i])
            tm_group_unlock_one(g);
        e->gdepth[i] = 0;
        e->gend[i] = 0;
    }
    e->gheld = 0;
    e->gmax = 0;
    e->gcommit = false;
    atomic_store_explicit(&e->gblocked, NULL, memory_order_relaxed);
}

/* fork(): the child has only the forking thread; the others' shared holds are gone with them
 * (a group another thread held exclusively stays held, as a mutex would). */
void tm_groups_fork_child(tm_tx *self)
{
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_relaxed)) {
        if (t == self)
            continue;
        for (int i = 0; i < TM_GROUPS_HELD; i++) {
            if (tm_group_used(&t->ext, i) && !t->ext.gexcl[i]) {
                atomic_store_explicit(&t->ext.gslot[i], NULL, memory_order_relaxed);
                tm_group_free(&t->ext, i);
            }
        }
    }
}

/* A wait (tm_retry, tm_cond_wait: ext/wait.c) sleeps with the attempt rolled back, like
 * pthread_cond_wait with its mutex released: the thread's shared holds step out meanwhile (a
 * writer that the sleeper's wake-up may depend on, a non-revocable section that produces what it
 * waits for, must not wait for the sleeper), and step back in before the transaction runs again.
 * A slot stepped out keeps its group with the low bit set: no writer's scan matches it. */
void tm_groups_step_out(tm_tx *tx)
{
    tm_ext_state *e = &tx->ext;
    for (int i = 0; e->gheld && i < TM_GROUPS_HELD; i++)
        if (e->gdepth[i] && !e->gexcl[i]) {
            uintptr_t g = (uintptr_t)atomic_load_explicit(&e->gslot[i], memory_order_relaxed);
            /* release: the rolled-back attempt's reads happen-before a writer that sees this */
            atomic_store_explicit(&e->gslot[i], (tm_group_state *)(g | 1), memory_order_release);
        }
}

void tm_groups_step_in(tm_tx *tx)
{
    tm_ext_state *e = &tx->ext;
    for (;;) { /* in address order, the one order */
        int next = -1;
        uintptr_t lowest = UINTPTR_MAX;
        for (int i = 0; i < TM_GROUPS_HELD; i++) {
            uintptr_t g = (uintptr_t)atomic_load_explicit(&e->gslot[i], memory_order_relaxed);
            if (e->gdepth[i] && (g & 1) && g < lowest) {
                lowest = g;
                next = i;
            }
        }
        if (next < 0)
            return;
        tm_group_enter_one(e, next, (tm_group_state *)(lowest & ~(uintptr_t)1));
    }
}


/* Descriptor lifecycle.
 *
 * Descriptors live on one push-only list (the registry) that other threads walk without a lock
 * to drain the serial lock or wait for quiescence. A thread takes a descriptor on its first
 * transaction (reusing one whose thread has exited, so thousands of short-lived threads cost a
 * bounded number of descriptors) and gives it back from a pthread key destructor. Nodes are never
 * freed, so a walker can never touch freed memory.
 *
 * The layers above learn of a thread's exit and of fork() through hooks (hooks.h: the
 * statistics' batch, the extensions' lock groups, waits and counters, the algorithms' state).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hooks.h"
#include "tx.h"

__thread tm_tx *tm_cur __attribute__((tls_model("initial-exec")));

static tm_tx *_Atomic tm_registry;
static pthread_key_t tm_tx_key;
static pthread_once_t tm_key_once = PTHREAD_ONCE_INIT;

/* Transaction ids are handed to threads in blocks so that starting a transaction writes no
 * shared cache line; 1 is _ITM_noTransactionId. */
static _Atomic uint32_t tm_id_blocks = 1;
static _Atomic uint32_t tm_orec_slots_used; /* descriptors given a slot so far */
tm_tx *_Atomic tm_desc_by_bit[64]; /* the descriptor with qbit 1 << k, k >= 1 (tx_modules.h) */
#define TM_ID_BLOCK 4096u

tm_tx *tm_registry_head(void)
{
    /* acquire: pairs with the release CAS in tm_registry_push, so a walker sees the node's
     * initialised fields (shared_ts, next). */
    return atomic_load_explicit(&tm_registry, memory_order_acquire);
}

static void tm_registry_push(tm_tx *tx)
{
    tm_tx *head = atomic_load_explicit(&tm_registry, memory_order_relaxed);
    do {
        atomic_store_explicit(&tx->next, head, memory_order_relaxed);
    } while (!atomic_compare_exchange_weak_explicit(&tm_registry, &head, tx, memory_order_release,
                                                    memory_order_relaxed));
}

/* Drops everything a descriptor holds: logs, actions, checkpoints, mode. */
static void tm_tx_scrub(tm_tx *tx)
{
    /* Pooled descriptors keep no logs: a pool sized by the peak number of threads then costs
     * about 1 KiB per entry, and the next owner grows its logs for its own transactions. */
    tm_logs_free(&tx->undo, &tx->rset, &tx->wset);
    tm_logs_free(&tx->locals, NULL, NULL);
    tm_olog_free(&tx->olog);
    free(tx->actions);
    free(tx->ext.pend); /* the counters' pending list (the slots stay: ext/counter.c) */
    tx->ext.pend = NULL;
    tx->ext.npend = tx->ext.cap_pend = 0;
    free(tx->cps);
    tm_hooks.algo_state_free(tx);
    tx->actions = NULL;
    tx->cps = NULL;
    tx->n_actions = tx->cap_actions = tx->n_cps = tx->cap_cps = 0;
    /* No ids left: the next owner's first begin takes the general path, which allocates the
     * checkpoint stack before it takes ids. The fast begins (checkpoint.S, begin.c) rely on
     * this: ids left means a checkpoint stack. */
    tx->id_end = tx->id_next;
    tx->nesting = 0;
    tx->flags = 0;
    tm_set_disp(tx, &tm_disp_direct);
}

static void tm_tx_release(void *arg)
{
    tm_tx *tx = arg;
    if (tx->nesting) {
        /* The thread ended inside a transaction (pthread_exit from an irrevocable section).
         * Its effects stay; release what it holds so the process can go on. */
        if (tx->flags & TM_F_SERIAL)
            tm_serial_release(tx);
        else if (tx->flags & TM_F_READER)
            tm_reader_exit(tx);
        else if (tx->flags & TM_F_BIASED)
            tm_bias_exit(tx);
        tm_ext_counters_apply(tx); /* its additions stay too: the lock opened for them closes */
        tx->nesting = 0;
    }
    tm_hooks.ext_thread_exit(tx);   /* the lock groups it holds */
    tm_hooks.stats_thread_exit(tx); /* its batch's count to its site, for the live view */
    tm_tx_scrub(tx);
    tm_cur_set(NULL);
    tm_bias_thread_left(tx);
    /* release: our last writes to the descriptor happen-before its next owner's first. */
    atomic_store_explicit(&tx->in_use, 0, memory_order_release);
}

static void tm_key_init(void)
{
    if (pthread_key_create(&tm_tx_key, tm_tx_release) != 0)
        tm_fatal("pthread_key_create failed");
    tm_guard_install(); /* at the first transaction: after the program set up its own handlers */
}

static void tm_stack_bounds(tm_tx *tx)
{
    pthread_attr_t attr;
    void *lo;
    size_t size;
    tx->stack_known = false;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        if (pthread_attr_getstack(&attr, &lo, &size) == 0) {
            tx->stack_lo = (uintptr_t)lo;
            tx->stack_hi = (uintptr_t)lo + size;
            tx->stack_known = true;
        }
        pthread_attr_destroy(&attr);
    }
}

void tm_tx_assign_ids(tm_tx *tx)
{
    /* relaxed: only uniqueness matters, not ordering. */
    TM_LINES(TM_LK_IDS, &tm_id_blocks);
    uint32_t block = atomic_fetch_add_explicit(&tm_id_blocks, 1, memory_order_relaxed);
    tx->id_next = block * TM_ID_BLOCK;
    tx->id_end = tx->id_next + TM_ID_BLOCK;
    if (tx->id_next <= TM_NO_TRANSACTION_ID)
        tx->id_next = TM_NO_TRANSACTION_ID + 1;
    tm_guard_refresh(); /* did the program replace our fault handler? (faultguard.c) */
}

tm_tx *tm_tx_create(void)
{
    pthread_once(&tm_key_once, tm_key_init);
    tm_tx *tx = NULL;
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_acquire)) {
        int expected = 0;
        /* acquire: pairs with the release store in tm_tx_release. */
        if (atomic_load_explicit(&t->in_use, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong_explicit(&t->in_use, &expected, 1, memory_order_acquire,
                                                    memory_order_relaxed)) {
            tx = t;
            break;
        }
    }
    if (!tx) {
        if (posix_memalign((void **)&tx, 64, sizeof *tx) != 0)
            tm_fatal("out of memory allocating a transaction descriptor");
        memset(tx, 0, sizeof *tx);
        atomic_init(&tx->shared_ts, TM_TS_INACTIVE);
        atomic_init(&tx->in_use, 1);
        /* orec_eager's writer slot (algo/orec_eager.c): fixed for the descriptor's life, so
         * unique among the threads using descriptors; the first TM_OREC_SLOTS - 1 get one.
         * relaxed: only uniqueness matters. */
        uint32_t slot = atomic_fetch_add_explicit(&tm_orec_slots_used, 1, memory_order_relaxed);
        tx->orec_slot = slot < TM_OREC_SLOTS - 1 ? slot + 1 : ~0ull;
        tx->obit = tx->qbit = tx->orec_slot < 64 ? 1ull << tx->orec_slot : 1;
        if (tx->qbit != 1) /* release: before our first read can set the bit (orec_eager.c) */
            atomic_store_explicit(&tm_desc_by_bit[tx->orec_slot], tx, memory_order_release);
        TM_LINES_AT(TM_LK_IDS, TM_LP_THREAD, &tm_registry);
        tm_registry_push(tx);
    }
    tm_set_disp(tx, &tm_disp_direct);
    tx->nesting = 0;
    tx->flags = 0;
    /* A recycled descriptor's pace of commits was its last thread's (core/cm.c) */
    tx->cm.commit_cycles = 0;
    tx->cm.window_at = 0;
    tx->rng = (uint64_t)(uintptr_t)tx * 0x9E3779B97F4A7C15ull | 1;
    /* No ids yet (id_next == id_end): the first begin takes the general path (see scrub). */
    tm_stack_bounds(tx);
    tm_hooks.algo_state_init(tx);
    tm_cur_set(tx);
    pthread_setspecific(tm_tx_key, tx);
    tm_bias_thread_joined(tx);
    return tx;
}

/* fork(): the child has only the calling thread. Descriptors of the parent's other threads are
 * scrubbed and returned to the pool: the serial lock taken in prepare guarantees no transaction
 * was running, but a thread may have been between its commit and the reset of its logs. */
static void tm_fork_prepare(void) { tm_serial_fork_prepare(); }
static void tm_fork_parent(void) { tm_serial_fork_parent(); }
static void tm_fork_child(void)
{
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_relaxed)) {
        if (t == tm_cur)
            continue;
        if (t->tcb) { /* a parent thread's TCB, which glibc may hand to our next new thread */
            *(tm_tx *volatile *)(t->tcb + TM_TCB_WORD) = NULL;
            t->tcb = 0;
        }
        if (atomic_load_explicit(&t->in_use, memory_order_relaxed))
            tm_tx_scrub(t);
        atomic_store_explicit(&t->shared_ts, TM_TS_INACTIVE, memory_order_relaxed);
        atomic_store_explicit(&t->atomic_busy, 0, memory_order_relaxed);
        atomic_store_explicit(&t->in_use, 0, memory_order_relaxed);
    }
    tm_serial_fork_child(tm_cur);
    tm_bias_fork_child(tm_cur);
    tm_cm_fork_child();
    tm_hooks.stats_fork_child();
    tm_hooks.ext_fork_child(tm_cur); /* waits, counters, lock groups */
}

__attribute__((constructor)) static void tm_thread_init(void)
{
    pthread_once(&tm_key_once, tm_key_init);
    pthread_atfork(tm_fork_prepare, tm_fork_parent, tm_fork_child);
}

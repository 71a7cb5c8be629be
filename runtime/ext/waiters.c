/* The waiters of tm_retry as writers see them (wait.c has the waits themselves, wake.c the
 * writers' side): a flag every writing commit tests, a count, and 64 slots naming the waiting
 * descriptors.
 *
 * The flag: writing commits test bit TM_RWAIT_RETRY with a plain load and no fence (ext.h), so
 * the waiter that raises it must force a full barrier on every thread (membarrier), after which
 * every writer either sees the bit or wrote before the barrier. A writer that sees the bit fences
 * and reads the count of waiters (wake.c): fences on both sides, a waiter needs no barrier of
 * others' while the bit has stayed up since such a barrier. So the bit outlives its waiters: it
 * is lowered only by a writer that found the count at 0 for TM_WAIT_LINGER of its commits in a
 * row (a producer and a consumer that take turns to wait raise it once, not at every wait: a
 * membarrier is an interrupt to every CPU that runs the program, tens of microseconds at 64).
 * The slots: a waiter takes the lowest free one under the lock before it raises the count, so
 * a writer whose acquire load of the count sees the waiter sees its slot; a writer reads the
 * slots up to the highest ever taken, one line per 8 waiters, instead of every descriptor's
 * line. Past 64 simultaneous waiters the rest count in tm_wait_overflow, and writers walk the
 * registry again (wake.c). */
#define _GNU_SOURCE
#include <pthread.h>

#include "ext.h"

/* Threads waiting in tm_retry (wake.c reads it). Bit TM_RWAIT_RETRY is up while the count is
 * nonzero and for a while after (see the top); the lock orders raising and lowering it against
 * the count (waits sleep anyway). tm_wait_fenced, under the lock: the bit is up and every thread
 * has passed a full barrier since it went up. */
static pthread_mutex_t tm_wait_lock = PTHREAD_MUTEX_INITIALIZER;
_Atomic uint32_t tm_wait_count;
static bool tm_wait_fenced;
/* ext.h: the waiting descriptors' slots (written under the lock, read by writers without it). */
tm_tx *_Atomic tm_wait_slot[TM_WAIT_SLOTS];
_Atomic uint32_t tm_wait_slots_hi;
_Atomic uint32_t tm_wait_overflow;

/* Under the lock: a slot for tx, or the overflow count. relaxed stores: the count's seq_cst
 * increment after them releases them to writers that read the count with acquire. */
static void tm_wait_slot_take(tm_tx *tx)
{
    uint32_t hi = atomic_load_explicit(&tm_wait_slots_hi, memory_order_relaxed), i = 0;
    while (i < TM_WAIT_SLOTS && atomic_load_explicit(&tm_wait_slot[i], memory_order_relaxed))
        i++;
    tx->ext.wait_slot = i;
    if (i == TM_WAIT_SLOTS) {
        atomic_fetch_add_explicit(&tm_wait_overflow, 1, memory_order_relaxed);
        return;
    }
    atomic_store_explicit(&tm_wait_slot[i], tx, memory_order_relaxed);
    if (i >= hi)
        atomic_store_explicit(&tm_wait_slots_hi, i + 1, memory_order_relaxed);
}

/* Makes this thread's wait visible to every later writer (step 2). */
void tm_wait_publish(tm_tx *tx)
{
    /* relaxed: the count's increment below releases it (and the watch) to a writer that
     * reads the count with acquire (wake.c). */
    atomic_store_explicit(&tx->ext.waiting, 1, memory_order_relaxed);
    pthread_mutex_lock(&tm_wait_lock);
    tm_wait_slot_take(tx);
    /* seq_cst: our half of the handshake with a writer's fence and load of the count. */
    atomic_fetch_add_explicit(&tm_wait_count, 1, memory_order_seq_cst);
    if (!(atomic_load_explicit(&tm_serial_rwait, memory_order_relaxed) & TM_RWAIT_RETRY)) {
        /* seq_cst: ordered before the barrier below, as the bias grant's check needs
         * (core/bias.c: tm_bias_grant). */
        atomic_fetch_or_explicit(&tm_serial_rwait, TM_RWAIT_RETRY, memory_order_seq_cst);
        tm_wait_fenced = false;
    }
    bool fenced = tm_wait_fenced;
    pthread_mutex_unlock(&tm_wait_lock);
    /* The bit is up and cannot go down while we count (tm_wait_linger_end). A barrier on every
     * thread: a writer that tested the bit before it was up wrote before the barrier. */
    if (!fenced && tm_barrier_all()) {
        pthread_mutex_lock(&tm_wait_lock);
        tm_wait_fenced = true;
        pthread_mutex_unlock(&tm_wait_lock);
    }
    /* Our own fence, against writers that see the bit (or that always fence: no membarrier). */
    atomic_thread_fence(memory_order_seq_cst);
}

void tm_wait_unpublish(tm_tx *tx)
{
    atomic_store_explicit(&tx->ext.waiting, 0, memory_order_relaxed);
    /* relaxed (all): a writer that still sees us in a slot, in the overflow or in the count
     * only looks at us for nothing. The bit stays up (see the top). */
    pthread_mutex_lock(&tm_wait_lock);
    if (tx->ext.wait_slot < TM_WAIT_SLOTS)
        atomic_store_explicit(&tm_wait_slot[tx->ext.wait_slot], NULL, memory_order_relaxed);
    else
        atomic_fetch_sub_explicit(&tm_wait_overflow, 1, memory_order_relaxed);
    pthread_mutex_unlock(&tm_wait_lock);
    atomic_fetch_sub_explicit(&tm_wait_count, 1, memory_order_relaxed);
}

void tm_wait_linger_end(void)
{
    /* trylock: called from commits, which must not block here; another thread will do it. */
    if (pthread_mutex_trylock(&tm_wait_lock) != 0)
        return;
    if (atomic_load_explicit(&tm_wait_count, memory_order_relaxed) == 0) {
        /* relaxed: a waiter raises it again under the lock, with its own barrier. */
        atomic_fetch_and_explicit(&tm_serial_rwait, ~TM_RWAIT_RETRY, memory_order_relaxed);
        tm_wait_fenced = false;
    }
    pthread_mutex_unlock(&tm_wait_lock);
}

/* fork child: no thread of the child waits. */
void tm_waiters_fork_child(void)
{
    pthread_mutex_init(&tm_wait_lock, NULL);
    atomic_store_explicit(&tm_wait_count, 0, memory_order_relaxed);
    tm_wait_fenced = false;
    for (uint32_t i = 0; i < TM_WAIT_SLOTS; i++)
        atomic_store_explicit(&tm_wait_slot[i], NULL, memory_order_relaxed);
    atomic_store_explicit(&tm_wait_slots_hi, 0, memory_order_relaxed);
    atomic_store_explicit(&tm_wait_overflow, 0, memory_order_relaxed);
    atomic_fetch_and_explicit(&tm_serial_rwait, ~TM_RWAIT_RETRY, memory_order_relaxed);
}

/* The single-thread bias of the serial lock.
 *
 * While at most one thread of the process runs transactions, that thread owns the serial lock
 * implicitly: a transaction marks itself active with a plain store to its own descriptor and
 * checks one read-mostly word (tm_bias_multi). No atomic read-modify-write, no shared line
 * written: a transaction then costs about what the uninstrumented code costs.
 *
 * When a second thread starts transacting (descriptor registration, once per thread) it revokes
 * the bias: it sets tm_bias_multi, issues membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which
 * executes a full memory barrier on every CPU running one of our threads, and then waits until
 * the biased thread is outside its transaction. This is the asymmetric Dekker pattern of
 * userspace RCU (urcu-memb): the frequent side pays a compiler barrier, the rare side a system
 * call. Without membarrier (kernels before 4.14, some sandboxes) there is no bias: tm_bias_multi
 * stays 1 and a lone thread takes the serial lock like any other, one compare-and-swap and one
 * exchange, about what the symmetric pattern's seq_cst store cost (that variant was dropped: it
 * was never tested, and its check cost every biased and serial begin two instructions).
 * When the count of transacting threads drops back to one, the bias is re-established.
 * Transitions are serialized by tm_bias_lock (thread start/exit only). An algorithm that does
 * not use the bias keeps tm_bias_multi at 1 for the life of the process.
 */
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config.h"
#include "tx.h"
#include "../algo/algo.h"
#include "../ext/ext.h"

_Atomic uint32_t tm_bias_multi = 1; /* until the constructor below has run */
static bool tm_bias_asymmetric; /* membarrier registered (tm_bias_init) */
/* Descriptors in use; written under tm_bias_lock, read without it by tm_bias_thread_count. */
static _Atomic uint32_t tm_bias_threads;
static pthread_mutex_t tm_bias_lock = PTHREAD_MUTEX_INITIALIZER;

static bool tm_membarrier(void)
{
    return syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0;
}

/* A full barrier on every thread of the process, for other asymmetric handshakes (ext/wait.c);
 * false without membarrier, whose users then fence on both sides. */
bool tm_barrier_asymmetric(void)
{
    return tm_bias_asymmetric;
}

bool tm_barrier_all(void)
{
    return tm_bias_asymmetric && tm_membarrier();
}

/* The bias needs the algorithm's consent and membarrier (see the top). */
static bool tm_bias_usable(void)
{
    return tm_config.algo->biased && tm_bias_asymmetric;
}

/* Called with tm_bias_lock held by a thread that is not in a transaction. */
static void tm_bias_revoke(tm_tx *self)
{
    if (atomic_load_explicit(&tm_bias_multi, memory_order_relaxed))
        return;
    /* seq_cst: the revoker's half of the Dekker pattern (see tm_bias_try_enter). The bias
     * was on, so membarrier is registered (tm_bias_usable). */
    TM_LINES_AT(TM_LK_BIAS, TM_LP_THREAD, &tm_bias_multi);
    atomic_store_explicit(&tm_bias_multi, 1, memory_order_seq_cst);
    if (!tm_membarrier())
        tm_fatal("membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) failed after registration");
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_acquire)) {
        if (t == self)
            continue;
        /* acquire: pairs with tm_bias_exit, so the biased transaction's writes are visible. */
        for (unsigned i = 0; atomic_load_explicit(&t->shared_ts, memory_order_acquire) != TM_TS_INACTIVE; i++)
            tm_cpu_relax(i);
    }
}

void tm_bias_thread_joined(tm_tx *self)
{
    pthread_mutex_lock(&tm_bias_lock);
    /* relaxed (here and below): the lock orders the updates; lock-free readers
     * (tm_bias_thread_count) only want a recent value. */
    TM_LINES_AT(TM_LK_BIAS, TM_LP_THREAD, &tm_bias_threads);
    if (atomic_fetch_add_explicit(&tm_bias_threads, 1, memory_order_relaxed) + 1 > 1)
        tm_bias_revoke(self);
    pthread_mutex_unlock(&tm_bias_lock);
}

void tm_bias_thread_left(void)
{
    pthread_mutex_lock(&tm_bias_lock);
    /* Back to one transacting thread: it may take the bias again at its next transaction. Any
     * transaction it is running now uses the shared protocol and simply completes. */
    TM_LINES_AT(TM_LK_BIAS, TM_LP_THREAD, &tm_bias_threads);
    if (atomic_fetch_sub_explicit(&tm_bias_threads, 1, memory_order_relaxed) - 1 <= 1 &&
        tm_bias_usable())
        atomic_store_explicit(&tm_bias_multi, 0, memory_order_release);
    pthread_mutex_unlock(&tm_bias_lock);
}

uint32_t tm_bias_thread_count(void)
{
    return atomic_load_explicit(&tm_bias_threads, memory_order_relaxed);
}

void tm_bias_fork_child(tm_tx *self)
{
    pthread_mutex_init(&tm_bias_lock, NULL);
    atomic_store_explicit(&tm_bias_threads, self ? 1 : 0, memory_order_relaxed);
    atomic_store_explicit(&tm_bias_multi, !tm_bias_usable(), memory_order_relaxed);
}

__attribute__((constructor(102))) static void tm_bias_init(void)
{
    long q = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    tm_bias_asymmetric = q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
                         syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
    /* Without membarrier, writing commits fence before they look for waiters (ext/ext.h). */
    if (!tm_bias_asymmetric)
        atomic_fetch_or_explicit(&tm_serial_rwait, TM_RWAIT_FENCE, memory_order_relaxed);
    /* After tm_config_init (constructor priority 101): the algorithm is known. */
    atomic_store_explicit(&tm_bias_multi, !tm_bias_usable(), memory_order_release);
}

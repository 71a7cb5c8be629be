/* The bias of the serial lock: one thread at a time may own it implicitly.
 *
 * The owner (tm_bias_owner, its descriptor) runs its transactions with no lock at all: a
 * transaction marks itself active with a plain store to its own descriptor and compares one
 * read-mostly word with its descriptor. No atomic read-modify-write, no shared line written: a
 * transaction then costs about what the uninstrumented code costs.
 *
 * Taking the bias back (tm_bias_revoke): clear the owner word with a compare-and-swap, issue
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which executes a full memory barrier on every
 * CPU running one of our threads, and wait until the old owner is outside its transaction. This
 * is the asymmetric Dekker pattern of userspace RCU (urcu-memb): the frequent side pays a
 * compiler barrier, the rare side a system call (~1-2 us on this 2-vCPU VM, 2026-11-26).
 * Without membarrier (kernels before 4.14, some sandboxes) there is no bias: the owner word
 * stays 0 and every thread takes the serial lock, one compare-and-swap and one exchange.
 *
 * Who gets it:
 *  - the only transacting thread: the first thread at its registration, the remaining one when
 *    the others leave. A second thread takes it back when it registers (tm_bias_thread_joined),
 *    as before there was more than one owner;
 *  - (TMKIT_BIAS=rotate, the default) a serial-lock holder that has committed TM_BIAS_STREAK
 *    serial transactions in a row while readers are excluded (adaptive's serial mode,
 *    serialirr), when nobody is registered to be woken by the unlock and nobody sleeps in
 *    tm_retry: it takes the bias just before its unlock (tm_bias_grant). Threads that are
 *    registered but idle (a server's pool) then cost it nothing, and of two threads that
 *    contend, the one whose turn it is (core/serial_handoff.c: the other spins or sleeps
 *    meanwhile) runs at its single-thread speed. A lone thread that runs serially because
 *    another thread is registered lost ~30% of its throughput to the lock's two atomics
 *    (16-read transactions, 2026-11-26: 21-33M/s against 30-48M/s alone).
 *    Anyone who then takes the serial lock takes the bias back first, under the lock
 *    (tm_bias_yield): the lock's acquisition is where grants and revocations meet, so no
 *    serial transaction ever runs beside a biased one. Readers (speculative attempts) cannot
 *    meet an owner of this kind: it is granted only while readers are excluded, and the holder
 *    that ends the exclusion has taken the bias back when it took the lock. tmkit.h's atomics
 *    on the orecs check the owner after their own entry (ext/atomic_orec.c). A thread about to
 *    sleep in tm_retry gives up or takes back the bias (tm_bias_revoke, after it published itself): biased commits
 *    do not look for sleepers to wake. Not while hardware transactions run (adaptive's htm
 *    mode, the htm algorithm: their elision of the lock does not see an owner).
 * Grants and revocations change the owner word with compare-and-swap, so a revoker never clears
 * a grant it did not see. An algorithm that does not use the bias keeps the owner at 0.
 */
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <pthread.h>

#include "config.h"
#include "hooks.h"
#include "serial_fast.h"
#include "sys.h"
#include "tx.h"

_Atomic uintptr_t tm_bias_owner; /* the owner's descriptor, or 0 (none, or before tm_bias_init) */
_Atomic uint32_t tm_bias_grants_off; /* adaptive's choice (core/cm_decide.c) */
static bool tm_bias_asymmetric; /* membarrier registered (tm_bias_init) */
/* Descriptors in use; written under tm_bias_lock, read without it by tm_bias_thread_count and
 * the biased commit (tm_bias_commit_count). */
_Atomic uint32_t tm_bias_threads;
static pthread_mutex_t tm_bias_lock = PTHREAD_MUTEX_INITIALIZER;

static bool tm_membarrier(void)
{
    return tm_sys3(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0;
}

/* A full barrier on every thread of the process, for other asymmetric handshakes (ext/waiters.c);
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

/* Takes the bias back from its owner. Returns with no other thread in a biased transaction
 * and the owner word 0, or tagged with `self` (our own biased attempt goes on: others then wait
 * for its end, see below).
 * Taking it back is two steps, tag then clear: the owner word becomes owner | 1, which no begin
 * accepts, then, after a membarrier, the old owner's transaction is waited for and the word
 * cleared. A thread that finds a tag does the same wait (with its own membarrier: the tagger's
 * may not have happened yet) before it goes on, so nobody proceeds on a cleared word while the
 * old owner may still run biased. */
void tm_bias_revoke(tm_tx *self)
{
    for (;;) {
        /* acquire: a grant's owner store comes before the unlock we synchronized with. */
        uintptr_t o = atomic_load_explicit(&tm_bias_owner, memory_order_acquire);
        if (!o)
            return;
        tm_tx *t = (tm_tx *)(o & ~(uintptr_t)1);
        if (t == self) {
            /* Ours: cleared outside a biased attempt; inside one (a tm_retry waiter, bias.c's
             * top), tagged so that others wait for the attempt's end. relaxed: no other
             * thread runs biased. */
            uintptr_t next = (self->flags & TM_F_BIASED) ? ((uintptr_t)self | 1) : 0;
            if (o == next ||
                atomic_compare_exchange_strong_explicit(&tm_bias_owner, &o, next,
                                                        memory_order_seq_cst, memory_order_relaxed))
                return;
            continue;
        }
        /* seq_cst: the revoker's half of the Dekker pattern (tm_bias_try_enter). */
        TM_LINES_AT(TM_LK_BIAS, TM_LP_THREAD, &tm_bias_owner);
        if (!(o & 1) && !atomic_compare_exchange_strong_explicit(&tm_bias_owner, &o, o | 1,
                                                                 memory_order_seq_cst,
                                                                 memory_order_relaxed))
            continue;
        /* The bias was on, so membarrier is registered (tm_bias_usable). */
        if (!tm_membarrier())
            tm_fatal("membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) failed after registration");
        /* acquire: pairs with tm_bias_exit, so the biased transaction's writes are visible. */
        for (unsigned i = 0; atomic_load_explicit(&t->shared_ts, memory_order_acquire) != TM_TS_INACTIVE; i++)
            tm_cpu_relax(i);
        o |= 1;
        /* relaxed: the acquire load above ordered the old owner's transaction before us; a
         * failure means another waiter cleared it. */
        atomic_compare_exchange_strong_explicit(&tm_bias_owner, &o, 0, memory_order_relaxed,
                                                memory_order_relaxed);
    }
}

/* The descriptor of the only thread in use besides `self`, or NULL if that is not one thread
 * (registry walk: thread exit only). */
static tm_tx *tm_bias_sole_other(const tm_tx *self)
{
    tm_tx *found = NULL;
    for (tm_tx *t = tm_registry_head(); t; t = atomic_load_explicit(&t->next, memory_order_acquire)) {
        /* relaxed: a descriptor being taken or released right now makes us grant nothing, or
         * grant to a thread whose registration will revoke it under tm_bias_lock. */
        if (t == self || !atomic_load_explicit(&t->in_use, memory_order_relaxed))
            continue;
        if (found)
            return NULL;
        found = t;
    }
    return found;
}

void tm_bias_thread_joined(tm_tx *self)
{
    pthread_mutex_lock(&tm_bias_lock);
    /* relaxed (here and below): the lock orders the updates; lock-free readers
     * (tm_bias_thread_count) only want a recent value. */
    TM_LINES_AT(TM_LK_BIAS, TM_LP_THREAD, &tm_bias_threads);
    if (atomic_fetch_add_explicit(&tm_bias_threads, 1, memory_order_relaxed) + 1 > 1)
        tm_bias_revoke(self);
    else if (tm_bias_usable()) /* relaxed: the only transacting thread is us */
        atomic_store_explicit(&tm_bias_owner, (uintptr_t)self, memory_order_relaxed);
    pthread_mutex_unlock(&tm_bias_lock);
}

void tm_bias_thread_left(tm_tx *self)
{
    pthread_mutex_lock(&tm_bias_lock);
    uintptr_t me = (uintptr_t)self;
    /* relaxed: we are outside any transaction; whoever takes the lock next sees the word. */
    atomic_compare_exchange_strong_explicit(&tm_bias_owner, &me, 0, memory_order_relaxed,
                                            memory_order_relaxed);
    /* Back to one transacting thread: it takes the bias at its next transaction. Any
     * transaction it is running now uses the shared protocol and simply completes. */
    TM_LINES_AT(TM_LK_BIAS, TM_LP_THREAD, &tm_bias_threads);
    tm_tx *sole;
    uintptr_t none = 0;
    if (atomic_fetch_sub_explicit(&tm_bias_threads, 1, memory_order_relaxed) - 1 == 1 &&
        tm_bias_usable() && (sole = tm_bias_sole_other(self)))
        /* relaxed: nothing to publish but the word; the sole thread reads it at its begin. A
         * CAS: a revocation may be in progress (a tag), which must finish first. */
        atomic_compare_exchange_strong_explicit(&tm_bias_owner, &none, (uintptr_t)sole,
                                                memory_order_relaxed, memory_order_relaxed);
    pthread_mutex_unlock(&tm_bias_lock);
}

/* TMKIT_BIAS=rotate (see the top): the serial holder `self` has committed TM_BIAS_STREAK
 * serial transactions since its last grant or contended acquisition, and is about to unlock. */
void tm_bias_grant(tm_tx *self)
{
    /* Not to a thread whose streak ends in a read-only transaction (GCC's pr_readOnly, a hint:
     * it only delays the grant to its next writing one) while waiters spin (serial_handoff.c): it
     * may be spinning in read-only transactions until another thread writes (a spin barrier, a
     * token passed round), and that thread, which cannot ask a biased owner to hand over,
     * would wait a whole turn to take the bias back (micro --mode ring: 0.09M hand-offs/s
     * with the grant, 1.3M without). When waiters sleep instead (more running threads than
     * CPUs), such a spinner is best left biased: it then spins without touching the lock, and
     * the sleepers take the bias back when they wake (streamcluster at 4 threads on 2 CPUs:
     * 4 s with the grant, 23-30 s without). */
    if ((self->prop & pr_readOnly) && !tm_serial_crowded())
        return;
    self->cm.bias_streak = 0;
    /* Not while hardware transactions elide the lock (adaptive's htm mode, the htm
     * algorithm): they would not see the owner. relaxed: tm_htm_on changes only under the
     * serial lock (cm.c: tm_cm_switch), which we hold, and the switch that sets it takes
     * the bias back when it takes the lock. (It read tm_htm_available: on a CPU with RTM,
     * serialirr and adaptive's serial mode never had the bias.) */
    if (tm_config.bias != TM_BIAS_ROTATE || atomic_load_explicit(&tm_htm_on, memory_order_relaxed) ||
        !tm_bias_usable())
        return;
    /* relaxed: a setting of adaptive's, which a grant read a little late only delays. */
    if (atomic_load_explicit(&tm_bias_grants_off, memory_order_relaxed))
        return;
    /* relaxed (both): written only by lock holders, and we hold the lock. Readers excluded:
     * no speculative attempt runs or can start (see the top). */
    if (!atomic_load_explicit(&tm_serial_excl, memory_order_relaxed) ||
        atomic_load_explicit(&tm_serial_word, memory_order_relaxed) != 1)
        return; /* registered waiters (2): the unlock wakes one, which would revoke at once */
    uintptr_t none = 0;
    /* seq_cst: our half of the Dekker pattern with a tm_retry waiter (ext/waiters.c): owner
     * store, then the sleepers' load; the unlock that follows publishes the owner to the next
     * holder. */
    TM_LINES_AT(TM_LK_BIAS, TM_LP_COMMIT, &tm_bias_owner);
    if (!atomic_compare_exchange_strong_explicit(&tm_bias_owner, &none, (uintptr_t)self,
                                                 memory_order_seq_cst, memory_order_relaxed))
        return;
    /* A tm_retry waiter relies on a writer's commit to wake it, which biased commits skip. */
    if (atomic_load_explicit(&tm_serial_rwait, memory_order_seq_cst) & TM_RWAIT_RETRY) {
        uintptr_t me = (uintptr_t)self;
        atomic_compare_exchange_strong_explicit(&tm_bias_owner, &me, 0, memory_order_relaxed,
                                                memory_order_relaxed);
    }
}

uint32_t tm_bias_thread_count(void)
{
    return atomic_load_explicit(&tm_bias_threads, memory_order_relaxed);
}

void tm_bias_fork_child(tm_tx *self)
{
    pthread_mutex_init(&tm_bias_lock, NULL);
    atomic_store_explicit(&tm_bias_threads, self ? 1 : 0, memory_order_relaxed);
    atomic_store_explicit(&tm_bias_owner, self && tm_bias_usable() ? (uintptr_t)self : 0,
                          memory_order_relaxed);
}

__attribute__((constructor(TM_INIT_CORE))) static void tm_bias_init(void)
{
    long q = tm_sys3(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    tm_bias_asymmetric = q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
                         tm_sys3(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
    /* Without membarrier, writing commits fence before they look for waiters (hooks.h:
     * tm_ext_wait_check_commit). */
    if (!tm_bias_asymmetric)
        atomic_fetch_or_explicit(&tm_serial_rwait, TM_RWAIT_FENCE, memory_order_relaxed);
    /* No thread has a descriptor yet: the first one takes the bias when it registers. */
}

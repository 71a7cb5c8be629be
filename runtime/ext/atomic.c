/* The single-thread fast path of tmkit.h's atomics outside transactions (include/tmkit/atomic.h).
 *
 * Outside a transaction each tm_atomic_* operation is a one-word transaction, so that it is
 * ordered with the transactions of other threads under every algorithm. While one thread runs
 * transactions (the single-thread bias of the serial lock, core/bias.c) there are no such
 * transactions: the thread marks itself inside a biased transaction exactly as a biased begin
 * does (a plain store to its own descriptor, a compiler barrier, one check of tm_bias_owner),
 * performs the operation with plain loads and stores, as the uninstrumented code of a biased
 * transaction would, and leaves. A thread that revokes the bias
 * waits until it has left (bias.c), so a transaction of the second thread sees the operation
 * whole. Another thread owns the bias, or nobody does: atomic_orec.c, on the word's orec under an orec
 * algorithm. Anything else (no descriptor yet, other algorithms, inside a transaction) answers
 * false, and the header runs its one-word transaction instead.
 * Inside a transaction that runs alone and cannot roll back (GCC's uninstrumented code under
 * the bias or the serial lock), the operation is done directly as well, instead of as a nested
 * transaction.
 * Cost at one thread: see docs/costs.md (the one-word transaction it replaces took ~8 ns; with
 * the hardware's locked instruction in place of the plain ones this path took ~4.1 ns, 2.1x the
 * bare instruction, the store that marks the thread active having to drain first). */
#include "ext.h"
#include "atomic_op.h"

TM_EXPORT tm_aret tmkit_atomic_biased(void *p, unsigned code, uint64_t v, uint64_t cmp)
{
    tm_tx *tx = tm_cur;
    if (TM_UNLIKELY(!tx))
        return (tm_aret){0, 0};
    if (tx->nesting) {
        /* Inside a transaction that runs alone and cannot roll back (biased, or holding the
         * serial lock irrevocably), running GCC's uninstrumented code: nobody else runs a
         * transaction, and other threads' tm_atomic_* calls are transactions of their own,
         * which wait for this one. */
        if ((tx->flags & TM_F_IRREVOCABLE) && tx->mode == TM_MODE_DIRECT)
            return (tm_aret){tm_aop(p, code, v, cmp), 1};
        return (tm_aret){0, 0};
    }
    /* Outside: as a biased begin (tm_bias_try_enter, without the transaction's flag). */
    if (atomic_load_explicit(&tm_bias_owner, memory_order_relaxed) != (uintptr_t)tx) {
        uint64_t old; /* several transacting threads: the orecs, if the algorithm has them */
        bool done = tm_atomic_orec(tx, p, code, v, cmp, &old);
        return (tm_aret){done ? old : 0, done};
    }
    atomic_store_explicit(&tx->shared_ts, 0, memory_order_relaxed);
    atomic_signal_fence(memory_order_seq_cst); /* the revoker's membarrier does the rest */
    if (TM_UNLIKELY(atomic_load_explicit(&tm_bias_owner, memory_order_seq_cst) != (uintptr_t)tx)) {
        atomic_store_explicit(&tx->shared_ts, TM_TS_INACTIVE, memory_order_release);
        return (tm_aret){0, 0};
    }
    uint64_t old = tm_aop(p, code, v, cmp);
    /* release: the operation happens-before a revoking thread that sees INACTIVE. */
    atomic_store_explicit(&tx->shared_ts, TM_TS_INACTIVE, memory_order_release);
    return (tm_aret){old, 1};
}

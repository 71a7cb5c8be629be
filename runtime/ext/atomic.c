/* The single-thread fast path of tmkit.h's atomics outside transactions (include/tmkit/atomic.h).
 *
 * Outside a transaction each tm_atomic_* operation is a one-word transaction, so that it is
 * ordered with the transactions of other threads under every algorithm. While one thread runs
 * transactions (the single-thread bias of the serial lock, core/bias.c) there are no such
 * transactions: the thread marks itself inside a biased transaction exactly as a biased begin
 * does (a plain store to its own descriptor, a compiler barrier, one check of tm_bias_multi),
 * performs the operation with plain loads and stores, as the uninstrumented code of a biased
 * transaction would, and leaves. A thread that revokes the bias
 * waits until it has left (bias.c), so a transaction of the second thread sees the operation
 * whole. Anything else (several transacting threads, no descriptor yet, inside a transaction)
 * answers false, and the header runs its one-word transaction instead.
 * Inside a transaction that runs alone and cannot roll back (GCC's uninstrumented code under
 * the bias or the serial lock), the operation is done directly as well, instead of as a nested
 * transaction.
 * Cost at one thread: see docs/costs.md (the one-word transaction it replaces took ~8 ns; with
 * the hardware's locked instruction in place of the plain ones this path took ~4.1 ns, 2.1x the
 * bare instruction, the store that marks the thread active having to drain first). */
#include "ext.h"

/* The operation codes of include/tmkit/atomic.h: the operation times 2, plus 1 for 8 bytes. */
enum { TM_AOP_LOAD, TM_AOP_STORE, TM_AOP_XCHG, TM_AOP_CAS, TM_AOP_ADD, TM_AOP_SUB, TM_AOP_AND, TM_AOP_OR };

/* What the header gets back, in two registers: the value (the old one; for a load the value
 * read; for a compare-exchange the value seen, the store done if it equalled `cmp`) and whether
 * the operation was done here (0: run the one-word transaction instead). */
typedef struct {
    uint64_t v, done;
} tm_aret;

/* The operation, as a transaction running alone does it: no other thread runs a transaction or
 * a tm_atomic_* call meanwhile (that is what the bias and the serial lock guarantee), so plain
 * loads and stores suffice, as in GCC's uninstrumented code of such a transaction; relaxed
 * atomics only keep the compiler from tearing or caching them. */
#define TM_AOP_DO(T)                                                                            \
    do {                                                                                        \
        T *w = p, x = (T)v, old = __atomic_load_n(w, __ATOMIC_RELAXED), neu;                    \
        switch (op) {                                                                           \
        case TM_AOP_LOAD: return (uint64_t)old;                                                 \
        case TM_AOP_STORE: neu = x; break;                                                      \
        case TM_AOP_XCHG: neu = x; break;                                                       \
        case TM_AOP_CAS:                                                                        \
            if (old != (T)cmp)                                                                  \
                return (uint64_t)old;                                                           \
            neu = x;                                                                            \
            break;                                                                              \
        case TM_AOP_ADD: neu = old + x; break;                                                  \
        case TM_AOP_SUB: neu = old - x; break;                                                  \
        case TM_AOP_AND: neu = old & x; break;                                                  \
        default: neu = old | x; break;                                                          \
        }                                                                                       \
        __atomic_store_n(w, neu, __ATOMIC_RELAXED);                                             \
        return (uint64_t)old;                                                                   \
    } while (0)

/* code: TM_AOP_* times 2, plus 1 for an 8-byte word. */
static inline uint64_t tm_aop(void *p, unsigned code, uint64_t v, uint64_t cmp)
{
    unsigned op = code >> 1;
    if (TM_LIKELY(code == (TM_AOP_ADD << 1 | 1))) { /* reference counts: the common case */
        uint64_t old = __atomic_load_n((uint64_t *)p, __ATOMIC_RELAXED);
        __atomic_store_n((uint64_t *)p, old + v, __ATOMIC_RELAXED);
        return old;
    }
    if (code & 1)
        TM_AOP_DO(uint64_t);
    TM_AOP_DO(uint32_t);
}

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
    if (atomic_load_explicit(&tm_bias_multi, memory_order_relaxed))
        return (tm_aret){0, 0};
    atomic_store_explicit(&tx->shared_ts, 0, memory_order_relaxed);
    atomic_signal_fence(memory_order_seq_cst); /* the revoker's membarrier does the rest */
    if (TM_UNLIKELY(atomic_load_explicit(&tm_bias_multi, memory_order_seq_cst))) {
        atomic_store_explicit(&tx->shared_ts, TM_TS_INACTIVE, memory_order_release);
        return (tm_aret){0, 0};
    }
    uint64_t old = tm_aop(p, code, v, cmp);
    /* release: the operation happens-before a revoking thread that sees INACTIVE. */
    atomic_store_explicit(&tx->shared_ts, TM_TS_INACTIVE, memory_order_release);
    return (tm_aret){old, 1};
}

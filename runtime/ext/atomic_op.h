/* The operations behind include/tmkit/atomic.h's calls, shared by the runtime's two direct
 * paths outside transactions: the single-thread bias (atomic.c) and the orecs (atomic_orec.c).
 * Both run an operation while nothing else touches its word through the runtime, so plain
 * loads and stores suffice. */
#ifndef TMKIT_EXT_ATOMIC_OP_H
#define TMKIT_EXT_ATOMIC_OP_H

#include <stdint.h>

/* The operation codes of include/tmkit/atomic.h: the operation times 2, plus 1 for 8 bytes. */
enum { TM_AOP_LOAD, TM_AOP_STORE, TM_AOP_XCHG, TM_AOP_CAS, TM_AOP_ADD, TM_AOP_SUB, TM_AOP_AND, TM_AOP_OR };

/* What the header gets back, in two registers: the value (the old one; for a load the value
 * read; for a compare-exchange the value seen, the store done if it equalled `cmp`) and whether
 * the operation was done here (0: run the one-word transaction instead). */
typedef struct {
    uint64_t v, done;
} tm_aret;

/* The operation, as a transaction running alone on its word does it: nothing else touches the
 * word through the runtime meanwhile (the bias, the serial lock or the word's locked orec), so
 * plain loads and stores suffice, as in GCC's uninstrumented code; relaxed atomics only keep
 * the compiler from tearing or caching them. */
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

/* The same with the hardware's atomic read-modify-write instructions: for the orec path, whose
 * operations may run beside hardware transactions (core/htm.c), which the orecs do not stop: a
 * plain load and store could lose the update of one that committed in between (the lost
 * updates of mt_atomic_refcount under adaptive's htm mode, 2026-11-25). relaxed: the orec's
 * acquire and release order the operation; only its atomicity is asked of the instruction. */
#define TM_AOP_HW(T)                                                                            \
    do {                                                                                        \
        T *w = p, x = (T)v, c = (T)cmp;                                                         \
        switch (op) {                                                                           \
        case TM_AOP_LOAD: return (uint64_t)__atomic_load_n(w, __ATOMIC_RELAXED);                \
        case TM_AOP_STORE: return (uint64_t)__atomic_exchange_n(w, x, __ATOMIC_RELAXED);        \
        case TM_AOP_XCHG: return (uint64_t)__atomic_exchange_n(w, x, __ATOMIC_RELAXED);         \
        case TM_AOP_CAS:                                                                        \
            __atomic_compare_exchange_n(w, &c, x, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);       \
            return (uint64_t)c;                                                                 \
        case TM_AOP_ADD: return (uint64_t)__atomic_fetch_add(w, x, __ATOMIC_RELAXED);           \
        case TM_AOP_SUB: return (uint64_t)__atomic_fetch_sub(w, x, __ATOMIC_RELAXED);           \
        case TM_AOP_AND: return (uint64_t)__atomic_fetch_and(w, x, __ATOMIC_RELAXED);           \
        default: return (uint64_t)__atomic_fetch_or(w, x, __ATOMIC_RELAXED);                    \
        }                                                                                       \
    } while (0)

static inline uint64_t tm_aop_hw(void *p, unsigned code, uint64_t v, uint64_t cmp)
{
    unsigned op = code >> 1;
    if (code & 1)
        TM_AOP_HW(uint64_t);
    TM_AOP_HW(uint32_t);
}

/* Does operation `code` (tm_aop's) store? A load does not, nor does a compare-exchange
 * that found another value (old, as tm_aop returned it). */
static inline bool tm_aop_stored(unsigned code, uint64_t old, uint64_t cmp)
{
    unsigned op = code >> 1;
    if (op == TM_AOP_LOAD)
        return false;
    if (op == TM_AOP_CAS)
        return (code & 1) ? old == cmp : (uint32_t)old == (uint32_t)cmp;
    return true;
}

#endif

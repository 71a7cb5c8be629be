/* tmkit/atomic.h — atomics that work inside and outside transactions (included by tmkit.h).
 *
 *     static long refs;
 *     tm_atomic_fetch_add(&refs, 1);                 // plain code: a one-word transaction
 *     __transaction_atomic {
 *         if (tm_atomic_fetch_sub(&refs, 1) == 1)    // inside: part of this transaction
 *             free_later(obj);
 *     }
 *
 * Each operation has the semantics of a transaction on one word: against other transactions it
 * is atomic and ordered (a transaction that read the word either sees the operation's result or
 * aborts), whatever the algorithm. A plain __atomic builtin does not have that: it bypasses the
 * runtime, so a concurrent transaction may read the old value and never notice (and inside
 * __transaction_atomic it does not compile; in a relaxed transaction it goes irrevocable).
 * - Inside a transaction (any transaction_safe code) GCC calls the operation's wrapper
 *   (transaction_wrap): a read and a write barrier of the enclosing transaction, no nested
 *   transaction, nothing serial; an attempt that rolls back leaves no trace.
 * - Outside one, the operation is a transaction of its own; while only this thread runs
 *   transactions, tmkit does it with plain instructions under the single-thread bias
 *   (runtime/ext/atomic.c), at about the hardware atomic's cost (docs/costs.md); with several
 *   threads under an orec algorithm or a serial mode, on the word's orec alone, so operations
 *   on different words share no written line (runtime/ext/atomic_orec.c); under gl_wt and NOrec
 *   as a one-word transaction.
 * Types: long, unsigned long, int, unsigned int (fetch-ops and all), and pointers (load, store,
 * exchange, compare-exchange). The calls are _Generic in C and overloads in C++:
 *   tm_atomic_load(p)  tm_atomic_store(p, v)  tm_atomic_exchange(p, v)
 *   tm_atomic_compare_exchange(p, &expected, desired)   -> 1 and *p = desired if *p == expected,
 *                                                          else 0 and expected = *p
 *   tm_atomic_fetch_add/sub/and/or(p, v)                 -> the value before
 * Only standard ABI calls: the same code runs on GCC's libitm. */
#ifndef TMKIT_ATOMIC_H
#define TMKIT_ATOMIC_H

#include <stdint.h>

#include "abi.h" /* _ITM_RU4 & co. */
#include "compat.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TMKIT_NO_TM
#define TMKIT__ATOMIC_WRAP(fn) __attribute__((transaction_pure, transaction_wrap(fn)))
#else
#define TMKIT__ATOMIC_WRAP(fn)
#endif
/* The runtime's direct paths (runtime/ext/atomic.c; absent on GCC's libitm; the name is
 * older than its second path): while only this thread runs transactions, or several run under
 * an orec algorithm, it does the operation itself and answers done = 1 with
 * the old value (for a compare-exchange: the value seen; it stored only if that equalled cmp);
 * otherwise done = 0 and the caller runs its one-word transaction. `code` is the operation
 * (load, store, exchange, compare-exchange, add, sub, and, or: 0-7) times 2, plus 1 for an
 * 8-byte word. */
typedef struct {
    uint64_t v, done;
} tmkit__aret;
tmkit__aret tmkit_atomic_biased(void *p, unsigned code, uint64_t v, uint64_t cmp)
    __attribute__((weak, transaction_pure, noplt));
#define TMKIT__AOP(op, N) ((op) * 2u + ((N) == 8))
/* Declares `tmkit__r` and tries the fast path: true when it did the operation. */
#define TMKIT__ATOMIC_FAST(p, op, N, v, cmp)                                                  \
    (tmkit_atomic_biased &&                                                                 \
     (tmkit__r = tmkit_atomic_biased((void *)(p), TMKIT__AOP(op, N), (uint64_t)(v), (uint64_t)(cmp))).done)

/* Weak and used: every translation unit may emit them, the program keeps one copy, and the
 * wrappers exist even when only GCC's transaction_wrap refers to them. Each is declared before
 * its definition, as programs built with -Wmissing-prototypes want of every global function. */
#define TMKIT__ATOMIC_FN __attribute__((weak, used, noinline))

/* One set of operations on a word type T (W: the unsigned word the barriers take, N: its size
 * for the barrier names, S: the name suffix). The plain version is a one-word transaction; the
 * wrapper (inside transactions) reads for write and writes through the enclosing one. */
#define TMKIT__ATOMIC_RMW(T, W, N, S, name, code, expr)                                      \
    TMKIT__ATOMIC_FN T tmkit_atomic_##name##_##S(T *, T);                                    \
    TMKIT__ATOMIC_FN T tmkit_atomic_##name##_##S(T *p, T v)                                  \
    {                                                                                       \
        T old;                                                                              \
        __transaction_atomic {                                                              \
            old = *p;                                                                       \
            *p = (T)(expr);                                                                 \
        }                                                                                   \
        return old;                                                                         \
    }                                                                                       \
    TMKIT__ATOMIC_FN T tmkit_tx_atomic_##name##_##S(T *, T)                                  \
        TMKIT__ATOMIC_WRAP(tmkit_atomic_##name##_##S);                                      \
    TMKIT__ATOMIC_FN T tmkit_tx_atomic_##name##_##S(T *p, T v)                               \
    {                                                                                       \
        T old = (T)_ITM_RfWU##N((const W *)p);                                              \
        _ITM_WU##N((W *)p, (W)(expr));                                                      \
        return old;                                                                         \
    }                                                                                       \
    static inline __attribute__((always_inline, transaction_safe, unused)) T                 \
    tmkit__##name##_##S(T *p, T v)                                                          \
    {                                                                                       \
        tmkit__aret tmkit__r;                                                               \
        if (TMKIT__ATOMIC_FAST(p, code, N, (W)v, 0))                                        \
            return (T)(W)tmkit__r.v;                                                        \
        return tmkit_atomic_##name##_##S(p, v);                                             \
    }

#define TMKIT__ATOMIC_WORD(T, W, N, S)                                                        \
    TMKIT__ATOMIC_FN T tmkit_atomic_load_##S(T *);                                           \
    TMKIT__ATOMIC_FN T tmkit_atomic_load_##S(T *p)                                           \
    {                                                                                       \
        T v;                                                                                \
        tmkit__aret tmkit__r;                                                               \
        if (TMKIT__ATOMIC_FAST(p, 0, N, 0, 0))                                              \
            return (T)(W)tmkit__r.v;                                                        \
        __transaction_atomic { v = *p; }                                                    \
        return v;                                                                           \
    }                                                                                       \
    TMKIT__ATOMIC_FN T tmkit_tx_atomic_load_##S(T *) TMKIT__ATOMIC_WRAP(tmkit_atomic_load_##S); \
    TMKIT__ATOMIC_FN T tmkit_tx_atomic_load_##S(T *p) { return (T)_ITM_RU##N((const W *)p); } \
    TMKIT__ATOMIC_FN void tmkit_atomic_store_##S(T *, T);                                    \
    TMKIT__ATOMIC_FN void tmkit_atomic_store_##S(T *p, T v)                                  \
    {                                                                                       \
        tmkit__aret tmkit__r;                                                               \
        if (TMKIT__ATOMIC_FAST(p, 1, N, (W)v, 0))                                           \
            return;                                                                         \
        __transaction_atomic { *p = v; }                                                    \
    }                                                                                       \
    TMKIT__ATOMIC_FN void tmkit_tx_atomic_store_##S(T *, T)                                  \
        TMKIT__ATOMIC_WRAP(tmkit_atomic_store_##S);                                         \
    TMKIT__ATOMIC_FN void tmkit_tx_atomic_store_##S(T *p, T v) { _ITM_WU##N((W *)p, (W)v); } \
    TMKIT__ATOMIC_FN int tmkit_atomic_cas_##S(T *, T *, T);                                  \
    TMKIT__ATOMIC_FN int tmkit_atomic_cas_##S(T *p, T *expected, T desired)                  \
    {                                                                                       \
        T seen;                                                                             \
        int ok;                                                                             \
        tmkit__aret tmkit__r;                                                               \
        if (TMKIT__ATOMIC_FAST(p, 3, N, (W)desired, (W)*expected)) {                        \
            if ((T)(W)tmkit__r.v == *expected)                                              \
                return 1;                                                                   \
            *expected = (T)(W)tmkit__r.v;                                                   \
            return 0;                                                                       \
        }                                                                                   \
        __transaction_atomic {                                                              \
            seen = *p;                                                                      \
            ok = seen == *expected;                                                         \
            if (ok)                                                                         \
                *p = desired;                                                               \
        }                                                                                   \
        if (!ok)                                                                            \
            *expected = seen;                                                               \
        return ok;                                                                          \
    }                                                                                       \
    TMKIT__ATOMIC_FN int tmkit_tx_atomic_cas_##S(T *, T *, T)                                \
        TMKIT__ATOMIC_WRAP(tmkit_atomic_cas_##S);                                           \
    TMKIT__ATOMIC_FN int tmkit_tx_atomic_cas_##S(T *p, T *expected, T desired)               \
    {                                                                                       \
        T seen = (T)_ITM_RfWU##N((const W *)p);                                             \
        /* expected is the caller's: usually a local, but maybe shared: through the barriers */ \
        T want = (T)_ITM_RU##N((const W *)expected);                                        \
        if (seen == want) {                                                                 \
            _ITM_WU##N((W *)p, (W)desired);                                                 \
            return 1;                                                                       \
        }                                                                                   \
        _ITM_WU##N((W *)expected, (W)seen);                                                 \
        return 0;                                                                           \
    }                                                                                       \
    TMKIT__ATOMIC_RMW(T, W, N, S, exchange, 2, v)

#define TMKIT__ATOMIC_ARITH(T, W, N, S)                                                       \
    TMKIT__ATOMIC_WORD(T, W, N, S)                                                          \
    TMKIT__ATOMIC_RMW(T, W, N, S, add, 4, old + v)                                          \
    TMKIT__ATOMIC_RMW(T, W, N, S, sub, 5, old - v)                                          \
    TMKIT__ATOMIC_RMW(T, W, N, S, and, 6, old & v)                                          \
    TMKIT__ATOMIC_RMW(T, W, N, S, or, 7, old | v)

#ifndef TMKIT_NO_TM
TMKIT__ATOMIC_ARITH(long, uint64_t, 8, l)
TMKIT__ATOMIC_ARITH(unsigned long, uint64_t, 8, ul)
TMKIT__ATOMIC_ARITH(int, uint32_t, 4, i)
TMKIT__ATOMIC_ARITH(unsigned int, uint32_t, 4, ui)
TMKIT__ATOMIC_WORD(void *, uint64_t, 8, p)
#endif

#ifdef __cplusplus
}
#endif

#if defined(__cplusplus) && !defined(TMKIT_NO_TM)
#define TMKIT__ATOMIC_CXX(T, S)                                                                \
    inline __attribute__((transaction_safe)) T tm_atomic_load(T *p) { return tmkit_atomic_load_##S(p); } \
    inline __attribute__((transaction_safe)) void tm_atomic_store(T *p, T v) { tmkit_atomic_store_##S(p, v); } \
    inline __attribute__((transaction_safe)) T tm_atomic_exchange(T *p, T v) { return tmkit__exchange_##S(p, v); } \
    inline __attribute__((transaction_safe)) int tm_atomic_compare_exchange(T *p, T *e, T d) \
    {                                                                                       \
        return tmkit_atomic_cas_##S(p, e, d);                                               \
    }
#define TMKIT__ATOMIC_CXX_ARITH(T, S)                                                          \
    TMKIT__ATOMIC_CXX(T, S)                                                                 \
    inline __attribute__((transaction_safe)) T tm_atomic_fetch_add(T *p, T v) { return tmkit__add_##S(p, v); } \
    inline __attribute__((transaction_safe)) T tm_atomic_fetch_sub(T *p, T v) { return tmkit__sub_##S(p, v); } \
    inline __attribute__((transaction_safe)) T tm_atomic_fetch_and(T *p, T v) { return tmkit__and_##S(p, v); } \
    inline __attribute__((transaction_safe)) T tm_atomic_fetch_or(T *p, T v) { return tmkit__or_##S(p, v); }
TMKIT__ATOMIC_CXX_ARITH(long, l)
TMKIT__ATOMIC_CXX_ARITH(unsigned long, ul)
TMKIT__ATOMIC_CXX_ARITH(int, i)
TMKIT__ATOMIC_CXX_ARITH(unsigned int, ui)
/* The value's type follows the pointer's (so NULL and derived pointers convert). */
template <typename T> struct tmkit__same { typedef T type; };
template <typename T> inline __attribute__((transaction_safe)) T *tm_atomic_load(T **p)
{
    return static_cast<T *>(tmkit_atomic_load_p(reinterpret_cast<void **>(p)));
}
template <typename T> inline __attribute__((transaction_safe)) void tm_atomic_store(T **p, typename tmkit__same<T>::type *v)
{
    tmkit_atomic_store_p(reinterpret_cast<void **>(p), v);
}
template <typename T> inline __attribute__((transaction_safe)) T *tm_atomic_exchange(T **p, typename tmkit__same<T>::type *v)
{
    return static_cast<T *>(tmkit__exchange_p(reinterpret_cast<void **>(p), v));
}
template <typename T>
inline __attribute__((transaction_safe)) int tm_atomic_compare_exchange(T **p, T **e, typename tmkit__same<T>::type *d)
{
    return tmkit_atomic_cas_p(reinterpret_cast<void **>(p), reinterpret_cast<void **>(e), d);
}
#elif !defined(TMKIT_NO_TM)
/* _Generic is C11: __extension__ keeps -std=gnu99 -pedantic builds quiet about it. */
#define TMKIT__ATOMIC_PICK(p, op)                                                             \
    (__extension__ _Generic(*(p), long: tmkit__##op##_l, unsigned long: tmkit__##op##_ul,     \
                            int: tmkit__##op##_i, unsigned int: tmkit__##op##_ui))
#define TMKIT__ATOMIC_PICKP(p, op)                                                            \
    (__extension__ _Generic(*(p), long: tmkit_atomic_##op##_l,                                \
                            unsigned long: tmkit_atomic_##op##_ul, int: tmkit_atomic_##op##_i, \
                            unsigned int: tmkit_atomic_##op##_ui, default: tmkit_atomic_##op##_p))
/* Pointers go through void **: any object pointer type converts. */
#define TMKIT__ATOMIC_P(p)                                                                    \
    (__extension__ _Generic(*(p), long: (p), unsigned long: (p), int: (p), unsigned int: (p), \
                            default: (void **)(p)))
#define tm_atomic_load(p) TMKIT__ATOMIC_PICKP(p, load)(TMKIT__ATOMIC_P(p))
#define tm_atomic_store(p, v) TMKIT__ATOMIC_PICKP(p, store)(TMKIT__ATOMIC_P(p), (v))
#define tm_atomic_exchange(p, v)                                                              \
    (__extension__ _Generic(*(p), long: tmkit__exchange_l, unsigned long: tmkit__exchange_ul, \
                            int: tmkit__exchange_i, unsigned int: tmkit__exchange_ui,         \
                            default: tmkit__exchange_p))(TMKIT__ATOMIC_P(p), (v))
#define tm_atomic_compare_exchange(p, e, d)                                                   \
    TMKIT__ATOMIC_PICKP(p, cas)(TMKIT__ATOMIC_P(p), TMKIT__ATOMIC_P(e), (d))
#define tm_atomic_fetch_add(p, v) TMKIT__ATOMIC_PICK(p, add)((p), (v))
#define tm_atomic_fetch_sub(p, v) TMKIT__ATOMIC_PICK(p, sub)((p), (v))
#define tm_atomic_fetch_and(p, v) TMKIT__ATOMIC_PICK(p, and)((p), (v))
#define tm_atomic_fetch_or(p, v) TMKIT__ATOMIC_PICK(p, or)((p), (v))
#else /* no TM (the clang front end of tmkit advise): the same calls, as plain atomics */
#define tm_atomic_load(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define tm_atomic_store(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)
#define tm_atomic_exchange(p, v) __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)
#define tm_atomic_compare_exchange(p, e, d)                                                   \
    __atomic_compare_exchange_n((p), (e), (d), 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define tm_atomic_fetch_add(p, v) __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
#define tm_atomic_fetch_sub(p, v) __atomic_fetch_sub((p), (v), __ATOMIC_SEQ_CST)
#define tm_atomic_fetch_and(p, v) __atomic_fetch_and((p), (v), __ATOMIC_SEQ_CST)
#define tm_atomic_fetch_or(p, v) __atomic_fetch_or((p), (v), __ATOMIC_SEQ_CST)
#endif

#endif

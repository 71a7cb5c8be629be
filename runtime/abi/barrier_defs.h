/* The barrier templates shared by barriers.c and barriers_avx.c. Each expands to one exported
 * function whose full ABI name is written at the expansion site. */
#ifndef TMKIT_BARRIER_DEFS_H
#define TMKIT_BARRIER_DEFS_H

#include "../core/tx.h"

extern const tm_dispatch tm_disp_direct TM_HIDDEN;

static inline __attribute__((always_inline)) tm_tx *tm_barrier_tx(const tm_dispatch **d)
{
    tm_tx *tx = tm_cur;
    *d = TM_LIKELY(tx != NULL) ? tx->disp : &tm_disp_direct;
    return tx;
}

#define TM_READ(NAME, T)                                                                   \
    TM_EXPORT T NAME(const T *addr)                                                        \
    {                                                                                      \
        const tm_dispatch *d;                                                              \
        tm_tx *tx = tm_barrier_tx(&d);                                                     \
        T v;                                                                               \
        d->read(tx, &v, addr, sizeof(T));                                                  \
        return v;                                                                          \
    }

#define TM_WRITE(NAME, T)                                                                  \
    TM_EXPORT void NAME(T *addr, T value)                                                  \
    {                                                                                      \
        const tm_dispatch *d;                                                              \
        tm_tx *tx = tm_barrier_tx(&d);                                                     \
        d->write(tx, addr, &value, sizeof(T));                                             \
    }

#define TM_LOG(NAME, T)                                                                    \
    TM_EXPORT void NAME(const T *addr)                                                     \
    {                                                                                      \
        tm_tx *tx = tm_cur;                                                                \
        if (tx && tx->nesting)                                                             \
            tm_undo_push(&tx->locals, addr, sizeof(T));                                    \
    }

#endif

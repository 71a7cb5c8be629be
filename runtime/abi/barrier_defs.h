/* The barrier templates shared by barriers.c and barriers_avx.c. Each expands to one exported
 * function whose full ABI name is written at the expansion site.
 *
 * Types of at most 8 bytes take an inline fast path when the address is naturally aligned and
 * the transaction is in one of the common modes (algo/fast.h); everything else goes through the
 * execution mode's dispatch table, which handles any size and alignment. The redo-log modes
 * also send addresses in the attempt's dead stack frames there (tm_dead_maybe; core/txn.c). */
#ifndef TMKIT_BARRIER_DEFS_H
#define TMKIT_BARRIER_DEFS_H

#include <string.h>

#include "../algo/fast.h"
#include "../algo/orec.h"
#include "../core/tx.h"

/* The general paths, out of line so the fast paths need no stack frame: `raw` carries the
 * value's bytes (little-endian, the first `size` bytes meaningful). */
TM_HIDDEN __attribute__((noinline)) uint64_t tm_read_slow(const void *addr, unsigned size,
                                                          tm_tx *tx);
TM_HIDDEN __attribute__((noinline)) void tm_write_slow(void *addr, uint64_t raw, unsigned size,
                                                      tm_tx *tx);

#define TM_ALIGNED(addr, size) ((((uintptr_t)(addr)) & ((size) - 1)) == 0)

/* The mode, as a value the compiler cannot see through: tests of it before and after a call of
 * this are not merged into one switch. GCC 12 turns a chain of six or more equality tests of one
 * variable into a jump table, whose indirect jump costs every mode behind it more than the
 * compares it saves (the order of the chain is the modes' weight). No instruction. */
static inline __attribute__((always_inline)) unsigned tm_mode_opaque(unsigned m)
{
    __asm__("" : "+r"(m));
    return m;
}

/* Read of a type of 1, 2, 4 or 8 bytes. The modes are tested in order of their weight: gl_wt
 * (any alignment: its clock check validates the value) and orec_eager, the two that adaptive
 * runs instrumented (orec_eager's read-only attempts first: in the read-mostly work that it
 * is chosen for, most reads are theirs), then NOrec, the serial modes (plain loads) and
 * orec_lazy. Compares, not a jump table: an indirect jump costs more than the compares in
 * front of the common modes. */
#define TM_READ_SMALL(NAME, T)                                                             \
    TM_EXPORT T NAME(const T *addr)                                                        \
    {                                                                                      \
        tm_tx *tx = tm_cur_tcb();                                                          \
        T v;                                                                               \
        uint64_t raw;                                                                      \
        if (TM_LIKELY(tx != NULL)) {                                                       \
            unsigned mode_ = tx->mode;                                                     \
            if (mode_ == TM_MODE_GLWT) {                                                   \
                if (tm_gl_read_fast(tx, addr, sizeof(T), &raw))                            \
                    goto done_;                                                            \
            } else if (mode_ == TM_MODE_OREC_RO) {                                         \
                if (TM_ALIGNED(addr, sizeof(T)) &&                                         \
                    tm_eager_ro_read_fast(tx, addr, sizeof(T), &raw))                      \
                    goto done_;                                                            \
            } else if ((mode_ = tm_mode_opaque(mode_)) == TM_MODE_OREC_EAGER) {            \
                if (TM_ALIGNED(addr, sizeof(T)) &&                                         \
                    tm_eager_read_fast(tx, addr, sizeof(T), &raw))                         \
                    goto done_;                                                            \
            } else if (mode_ == TM_MODE_NOREC) {                                           \
                if (TM_ALIGNED(addr, sizeof(T)) && !tm_dead_maybe(tx, addr) &&             \
                    tm_norec_read_fast(tx, addr, sizeof(T), &raw))                         \
                    goto done_;                                                            \
            } else if (mode_ <= TM_MODE_SERIAL_UNDO) {                                     \
                memcpy(&v, addr, sizeof(T));                                               \
                return v;                                                                  \
            } else if (mode_ == TM_MODE_OREC_LAZY && TM_ALIGNED(addr, sizeof(T)) &&        \
                       !tm_dead_maybe(tx, addr)) {                                         \
                if (!(tx->wset.n && tm_wset_maybe(&tx->wset, addr, sizeof(T))) &&          \
                    tm_orec_read_fast(tx, addr, sizeof(T), &raw))                          \
                    goto done_;                                                            \
            }                                                                              \
        }                                                                                  \
        raw = tm_read_slow(addr, sizeof(T), tx);                                           \
    done_:                                                                                 \
        memcpy(&v, &raw, sizeof(T));                                                       \
        return v;                                                                          \
    }

/* Write of a type of 1, 2, 4 or 8 bytes, modes tested in the same order as reads. */
#define TM_WRITE_SMALL(NAME, T)                                                            \
    TM_EXPORT void NAME(T *addr, T value)                                                  \
    {                                                                                      \
        tm_tx *tx = tm_cur_tcb();                                                          \
        uint64_t raw = 0;                                                                  \
        memcpy(&raw, &value, sizeof(T));                                                   \
        if (TM_LIKELY(tx != NULL) && TM_ALIGNED(addr, sizeof(T))) {                        \
            unsigned mode_ = tx->mode;                                                     \
            if (TM_LIKELY(mode_ == TM_MODE_GLWT)) {                                      \
                if (TM_LIKELY(tx->owned) &&                                                \
                    tm_undo_push_fast(&tx->undo, addr, sizeof(T))) {                       \
                    tm_store_n(addr, raw, sizeof(T));                                      \
                    return;                                                                \
                }                                                                          \
            } else if (TM_LIKELY(mode_ == TM_MODE_OREC_EAGER)) {                           \
                if (tm_eager_write_fast(tx, addr, raw, sizeof(T)))                         \
                    return;                                                                \
            } else if (mode_ == TM_MODE_NOREC) {                                           \
                if (TM_LIKELY(!tm_dead_maybe(tx, addr))) {                                 \
                    tm_wset_write_fast(&tx->wset, addr, raw, sizeof(T));                   \
                    return;                                                                \
                }                                                                          \
            } else if (mode_ == TM_MODE_DIRECT) {                                          \
                tm_store_n(addr, raw, sizeof(T));                                          \
                return;                                                                    \
            } else if (mode_ == TM_MODE_SERIAL_UNDO) {                                     \
                if (tm_undo_push_fast(&tx->undo, addr, sizeof(T))) {                       \
                    tm_store_n(addr, raw, sizeof(T));                                      \
                    return;                                                                \
                }                                                                          \
            } else if (mode_ == TM_MODE_OREC_LAZY) {                                       \
                if (TM_LIKELY(!tm_dead_maybe(tx, addr))) {                                 \
                    tm_wset_write_fast(&tx->wset, addr, raw, sizeof(T));                   \
                    return;                                                                \
                }                                                                          \
            }                                                                              \
        }                                                                                  \
        tm_write_slow(addr, raw, sizeof(T), tx);                                           \
    }

/* Any other size (long double, complex double, vectors of 16 or 32 bytes). */
#define TM_READ(NAME, T)                                                                   \
    TM_EXPORT T NAME(const T *addr)                                                        \
    {                                                                                      \
        tm_tx *tx = tm_cur_tcb();                                                          \
        T v;                                                                               \
        (tx ? tx->disp : &tm_disp_direct)->read(tx, &v, addr, sizeof(T));                  \
        return v;                                                                          \
    }

#define TM_WRITE(NAME, T)                                                                  \
    TM_EXPORT void NAME(T *addr, T value)                                                  \
    {                                                                                      \
        tm_tx *tx = tm_cur_tcb();                                                          \
        (tx ? tx->disp : &tm_disp_direct)->write(tx, addr, &value, sizeof(T));             \
    }

#define TM_LOG(NAME, T)                                                                    \
    TM_EXPORT void NAME(const T *addr)                                                     \
    {                                                                                      \
        tm_tx *tx = tm_cur_tcb();                                                          \
        if (tx && tx->nesting)                                                             \
            tm_undo_push(&tx->locals, addr, sizeof(T));                                    \
    }

#endif

/* The data that barriers inlined by tmkit's GCC plugin read (tools/gcc-plugin/, the contract in
 * core/inline_layout.h): where gl_wt's clock and the orec table are, under a name that carries
 * the layout's version. The runtime itself keeps using the hidden names of those words. The block
 * holds only addresses, so a copy relocation of it into a program linked without -fPIE still
 * points at the runtime's own words.
 *
 * The inlined code reads, besides these, the descriptor's fields at the offsets checked below:
 * the same ones, with the same memory orders, as the runtime's own fast paths (fast.h, orec.h),
 * of which it is a copy in GIMPLE. */
#include <stddef.h>

#include "../core/inline_layout.h"
#include "../core/tx.h"
#include "fast.h"
#include "orec.h"

/* The shared-line counting build (core/lines.h) counts stores the inlined code would not, and a
 * build with another orec size (orec.h: TM_OREC_SHIFT) maps words elsewhere: they export
 * nothing, so that inlined code always takes the call there. */
#if !defined(TMKIT_COUNT_LINES) && TM_OREC_SHIFT == TM_INL_OREC_SHIFT
struct tm_inline_abi {
    _Atomic uint64_t *gl_clock;
    _Atomic uint64_t *orecs;
    void *reserved[6];
};

TM_EXPORT const struct tm_inline_abi tmkit_inline_v1 = {
    .gl_clock = &tm_gl_clock_line.w,
    .orecs = tm_orecs,
};

_Static_assert(sizeof(struct tm_inline_abi) == TM_INL_SIZE, "inline_layout.h: TM_INL_SIZE");
_Static_assert(offsetof(struct tm_inline_abi, gl_clock) == TM_INL_GL_CLOCK, "TM_INL_GL_CLOCK");
_Static_assert(offsetof(struct tm_inline_abi, orecs) == TM_INL_ORECS, "TM_INL_ORECS");

#define TM_INL_IS(field, off) \
    _Static_assert(offsetof(struct tm_tx, field) == (off), "inline_layout.h: offset of " #field)
TM_INL_IS(mode, TM_INL_TX_MODE);
TM_INL_IS(snapshot, TM_INL_TX_SNAPSHOT);
TM_INL_IS(owned, TM_INL_TX_OWNED);
TM_INL_IS(obound, TM_INL_TX_OBOUND);
TM_INL_IS(obit, TM_INL_TX_OBIT);
TM_INL_IS(olog.cur, TM_INL_TX_OLOG_CUR);
TM_INL_IS(olog.end, TM_INL_TX_OLOG_END);
TM_INL_IS(olog.unlogged, TM_INL_TX_OLOG_UNLOGGED);
TM_INL_IS(orec_slot, TM_INL_TX_OREC_SLOT);
TM_INL_IS(undo.buf, TM_INL_TX_UNDO_BUF);
TM_INL_IS(undo.len, TM_INL_TX_UNDO_LEN);
TM_INL_IS(undo.cap, TM_INL_TX_UNDO_CAP);
TM_INL_IS(undo.count, TM_INL_TX_UNDO_COUNT);
TM_INL_IS(algo_state, TM_INL_TX_ALGO_STATE);
#undef TM_INL_IS
_Static_assert(sizeof(((tm_tx *)0)->mode) == 1, "TM_INL_TX_MODE is one byte");
_Static_assert(TM_INL_MODE_DIRECT == TM_MODE_DIRECT && TM_INL_MODE_SERIAL_UNDO == TM_MODE_SERIAL_UNDO &&
               TM_MODE_DIRECT < TM_MODE_SERIAL_UNDO && TM_MODE_SERIAL_UNDO < TM_MODE_NOREC &&
               TM_MODE_SERIAL_UNDO < TM_MODE_GLWT, "inline_layout.h: exclusive modes lowest");
_Static_assert(TM_INL_MODE_GLWT == TM_MODE_GLWT && TM_INL_MODE_OREC_EAGER == TM_MODE_OREC_EAGER &&
               TM_INL_MODE_OREC_RO == TM_MODE_OREC_RO, "inline_layout.h: modes");
_Static_assert(TM_INL_OREC_BITS == TM_OREC_BITS && TM_INL_OREC_SHIFT == TM_OREC_SHIFT &&
               TM_INL_OREC_SLOT_BITS == TM_OREC_SLOT_BITS &&
               (1ull << TM_INL_OREC_LOCK_BIT) == TM_OREC_LOCK, "inline_layout.h: orecs");
_Static_assert(TM_INL_TCB_WORD == TM_TCB_WORD, "inline_layout.h: TM_INL_TCB_WORD");
_Static_assert(sizeof(tm_orecs) == (2ull << TM_OREC_BITS) * 8, "orecs: pairs of words");
_Static_assert(offsetof(tm_locks, n) == TM_INL_LOCKS_N && offsetof(tm_locks, cap) == TM_INL_LOCKS_CAP &&
               offsetof(tm_locks, rec) == TM_INL_LOCKS_REC &&
               sizeof(tm_lockrec) == TM_INL_LOCKREC_SIZE &&
               offsetof(tm_lockrec, orec) == TM_INL_LOCKREC_OREC, "inline_layout.h: lock records");
#endif

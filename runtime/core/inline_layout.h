/* What code that tmkit's GCC plugin inlined into a program reads of the runtime (the plugin:
 * tools/gcc-plugin/; the exported data: algo/inline_abi.c, which checks every value here with a
 * static assertion, so a change of layout that forgets this file fails the build).
 *
 * The contract is versioned by name: inlined code finds the runtime's data through a weak
 * reference to TM_INLINE_SYMBOL. Under GCC's libitm, or a tmkit without this version of the
 * layout, the reference is unresolved (address 0) and the inlined code always takes the call it
 * was made from. A change of anything below must change the symbol's name (exported with no
 * symbol version: abi/libitm.map says why): old binaries then find nothing and keep working, at
 * the call's speed.
 *
 * Plain macros only: the plugin (C++, GCC's internal headers) includes this file too. */
#ifndef TMKIT_INLINE_LAYOUT_H
#define TMKIT_INLINE_LAYOUT_H

#define TM_INLINE_SYMBOL "tmkit_inline_v1"

/* struct tm_inline_abi (algo/inline_abi.c): read-only after relocation. */
#define TM_INL_GL_CLOCK 0 /* &gl_wt's clock word (algo/fast.h: tm_gl_clock) */
#define TM_INL_ORECS 8    /* &the orec table (algo/orec.h: tm_orecs), pairs of words */
#define TM_INL_SIZE 64

/* struct tm_tx (core/tx.h) */
#define TM_INL_TX_MODE 100 /* uint8_t, enum tm_mode (core/dispatch.h) */
#define TM_INL_TX_SNAPSHOT 152
#define TM_INL_TX_OWNED 160
#define TM_INL_TX_OBOUND 480
#define TM_INL_TX_OBIT 488
#define TM_INL_TX_OLOG_CUR 496
#define TM_INL_TX_OLOG_END 504
#define TM_INL_TX_OLOG_UNLOGGED 520
#define TM_INL_TX_OREC_SLOT 528
#define TM_INL_TX_UNDO_BUF 672
#define TM_INL_TX_UNDO_LEN 680
#define TM_INL_TX_UNDO_CAP 688
#define TM_INL_TX_UNDO_COUNT 696
#define TM_INL_TX_ALGO_STATE 168 /* orec_eager: its lock records (algo/orec.h: tm_locks) */

/* struct tm_locks and tm_lockrec (algo/orec.h) */
#define TM_INL_LOCKS_N 0
#define TM_INL_LOCKS_CAP 8
#define TM_INL_LOCKS_REC 40
#define TM_INL_LOCKREC_SIZE 24
#define TM_INL_LOCKREC_OREC 16

/* enum tm_mode values inlined code tests (the two exclusive modes, direct and serial_undo,
 * are the lowest: a read tests mode <= TM_INL_MODE_SERIAL_UNDO) */
#define TM_INL_MODE_DIRECT 0
#define TM_INL_MODE_SERIAL_UNDO 1
#define TM_INL_MODE_GLWT 3
#define TM_INL_MODE_OREC_EAGER 5
#define TM_INL_MODE_OREC_RO 6

/* algo/orec.h */
#define TM_INL_OREC_BITS 18
#define TM_INL_OREC_SHIFT 3 /* bytes an orec covers: 2^TM_INL_OREC_SHIFT (orec.h: tm_orec_of) */
#define TM_INL_OREC_SLOT_BITS 10
#define TM_INL_OREC_LOCK_BIT 63
#define TM_INL_UNDO_RECORD 24 /* value, address, size: 8 bytes each (core/log.c: tm_undo_push) */

#define TM_INL_TCB_WORD 0x50 /* %fs offset of the thread's descriptor (tx_layout.h: TM_TCB_WORD) */

#endif

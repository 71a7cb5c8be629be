/* Offsets and constants shared by the descriptor (tx.h), the statistics' site (stats/stats.h)
 * and abi/checkpoint.S, which is preprocessed but not compiled as C. tx.h and stats.h check
 * every value here with a static assertion, so a change of layout that forgets this file fails
 * the build instead of corrupting descriptors.
 */
#ifndef TMKIT_TX_LAYOUT_H
#define TMKIT_TX_LAYOUT_H

/* struct tm_tx: the saved registers (tm_jmpbuf, 72 bytes) first, then the fields the biased
 * begin writes, all in the descriptor's first two cache lines. */
#define TM_TX_JB0 0
#define TM_TX_JB0_PC 56 /* jb0.pc */
#define TM_TX_NESTING 72
#define TM_TX_FLAGS 76
#define TM_TX_PROP 80
#define TM_TX_RETRIES 84
#define TM_TX_ID 88
#define TM_TX_ID_NEXT 92
#define TM_TX_ID_END 96
#define TM_TX_MODE 100
#define TM_TX_EH_SAVED 101
#define TM_TX_N_CPS 104
#define TM_TX_IRREVOCABLE_CPS 112 /* uint32 */
/* The statistics' batch of whole attempts (stats/stats.h: tm_stats_whole_load). */
#define TM_TX_STATS_W_LEFT 116 /* attempts the batch can still take + 1 (int32) */
#define TM_TX_STATS_W_PC 120   /* its site's pc, bit 63 set for serial attempts; 0: none */
#define TM_STATS_SERIAL_BIT 63
#define TM_TX_SHARED_TS 960 /* its own cache line, read by other threads */
#define TM_TX_STATS_L0_PC 464 /* the site of the thread's last attempt counted outside the batch */
#define TM_TX_STATS_L0 472
#define TM_TX_STATS_PENDING 184 /* the counter the commit of a whole attempt adds to */

/* struct tm_site (stats/stats.h): what an attempt counted whole outside the batch touches. */
#define TM_SITE_FAST 376
#define TM_SITE_FAST_SERIAL 384
#define TM_SITE_T_LEFT 392

#define TM_TCB_WORD 0x50 /* the TCB word holding the thread's descriptor (tx.h) */

/* Intel TM ABI bits (itm_abi.h) and the descriptor's flags (tx.h) the fast begins use. */
#define TM_PR_BIASED_NEEDS 0x000a /* pr_hasNoAbort | pr_uninstrumentedCode */
#define TM_A_UNINSTRUMENTED 0x06  /* a_runUninstrumentedCode | a_saveLiveVariables */
#define TM_F_BIASED_IRREVOCABLE 0x12 /* TM_F_BIASED | TM_F_IRREVOCABLE */
#define TM_F_SERIAL_IRREVOCABLE 0x03 /* TM_F_SERIAL | TM_F_IRREVOCABLE */

#endif

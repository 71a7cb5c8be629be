/* The transactional copy and fill behind _ITM_memcpy*, _ITM_memmove* and _ITM_memset* (memfns.c),
 * also used for the program's plain memcpy/memmove/memset inside transactions (interpose.c).
 * src_tx/dst_tx: that side goes through the attempt's barriers (else it is accessed in place);
 * move: the ranges may overlap. tx may be NULL (no descriptor: plain accesses). */
#ifndef TMKIT_MEMFNS_H
#define TMKIT_MEMFNS_H

#include "../core/tx.h"

TM_HIDDEN void *tm_mem_copy(tm_tx *tx, void *dst, const void *src, size_t len, bool src_tx,
                            bool dst_tx, bool move);
TM_HIDDEN void *tm_mem_set(tm_tx *tx, void *dst, int c, size_t len);

#endif

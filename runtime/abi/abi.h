/* The abi layer's interfaces between its own files: the clone table (clone_table.c) and the C++
 * exception state of transactions (eh.c). Core's rollback reaches eh.c through a hook
 * (core/hooks.h: eh_rollback, filled in by abi_hooks.c). */
#ifndef TMKIT_ABI_H
#define TMKIT_ABI_H

#include "../core/tx.h"

/* clone_table.c: is fn the start of a registered transactional clone? (interpose.c) */
TM_HIDDEN bool tm_clone_is_clone(uintptr_t fn);

/* eh.c: a rollback to a checkpoint ends the catches opened since; the outermost one also drops
 * the exception in flight and restores the count of uncaught exceptions. */
TM_HIDDEN void tm_eh_rollback(tm_tx *tx, uint32_t catch_count_target, bool outer);
/* eh.c: does [p, p+len) lie within an exception object this transaction allocated and has not
 * thrown into a catch yet? (memfns.c) */
TM_HIDDEN bool tm_eh_owns(const tm_tx *tx, const void *p, size_t len);

#endif

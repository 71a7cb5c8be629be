/* tmkit/abi.h — the Intel TM ABI calls that the tmkit headers use (present in tmkit and in GCC's
 * libitm alike), declared once here: several headers need the same ones, and a second
 * declaration of a function is an error in programs built with -Wredundant-decls -Werror.
 * The prototypes are the ones GCC knows for its own built-in barriers under -fgnu-tm, so they
 * must stay exactly as they are. */
#ifndef TMKIT_ABI_H
#define TMKIT_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Handlers (tmkit.h). */
int _ITM_inTransaction(void) __attribute__((transaction_pure));
void _ITM_addUserCommitAction(void (*)(void *), unsigned int, void *) __attribute__((transaction_pure));
void _ITM_addUserUndoAction(void (*)(void *), void *) __attribute__((transaction_pure));
void *_ITM_memcpyRtWn(void *, const void *, size_t) __attribute__((transaction_pure));

/* One-word barriers (tmkit/atomic.h, tmkit/libc.h). */
uint8_t _ITM_RU1(const uint8_t *) __attribute__((transaction_pure));
uint32_t _ITM_RU4(const uint32_t *) __attribute__((transaction_pure));
uint64_t _ITM_RU8(const uint64_t *) __attribute__((transaction_pure));
uint32_t _ITM_RfWU4(const uint32_t *) __attribute__((transaction_pure));
uint64_t _ITM_RfWU8(const uint64_t *) __attribute__((transaction_pure));
void _ITM_WU1(uint8_t *, uint8_t) __attribute__((transaction_pure));
void _ITM_WU4(uint32_t *, uint32_t) __attribute__((transaction_pure));
void _ITM_WU8(uint64_t *, uint64_t) __attribute__((transaction_pure));

/* Memory, clones and modes (tmkit/libc.h). */
void *_ITM_malloc(size_t) __attribute__((transaction_pure));
void _ITM_free(void *) __attribute__((transaction_pure));
void *_ITM_getTMCloneSafe(void *) __attribute__((transaction_pure));
void _ITM_changeTransactionMode(int) __attribute__((transaction_pure));

#ifdef __cplusplus
}
#endif

#endif

/* glibc's memcpy, memmove and memset, reached without going through the names libitm.so.1
 * exports (libc_direct.c; the runtime's own calls reach them through core/libc_rename.h). */
#ifndef TMKIT_CORE_LIBC_DIRECT_H
#define TMKIT_CORE_LIBC_DIRECT_H

#include <stddef.h>

#include "tx.h"

typedef void *tm_memcpy_fn(void *dst, const void *src, size_t n);
typedef void *tm_memset_fn(void *dst, int c, size_t n);
extern tm_memcpy_fn *tm_libc_memcpy_p TM_HIDDEN, *tm_libc_memmove_p TM_HIDDEN;
extern tm_memset_fn *tm_libc_memset_p TM_HIDDEN;
extern size_t (*tm_libc_strlen_p)(const char *) TM_HIDDEN;

#endif

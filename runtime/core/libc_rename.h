/* The runtime's own memcpy, memmove and memset go straight to libc.
 *
 * libitm.so.1 exports memcpy@GLIBC_2.14, memmove@GLIBC_2.2.5, memset@GLIBC_2.2.5 and
 * strlen@GLIBC_2.2.5 to see the
 * program's calls (abi/interpose.c). A call from inside the runtime must not reach those: it would
 * be taken for the program's copy and routed through the running transaction. Every runtime source
 * is compiled with `-include` of this header (runtime/CMakeLists.txt): declaring the three with an
 * assembler name renames the explicit calls and the ones GCC emits for struct copies and
 * clears, so the library has no reference to memcpy, memmove, memset or strlen at all
 * (tests/unit/test_interpose.sh checks its undefined symbols). */
#ifndef TMKIT_LIBC_RENAME_H
#define TMKIT_LIBC_RENAME_H

#include <stddef.h>

/* core/libc_direct.c and abi/interpose.c define these and glibc's names themselves. */
#ifndef TMKIT_LIBC_DIRECT_IMPL
void *memcpy(void *dst, const void *src, size_t n) __asm__("tm_libc_memcpy");
void *memmove(void *dst, const void *src, size_t n) __asm__("tm_libc_memmove");
void *memset(void *dst, int c, size_t n) __asm__("tm_libc_memset");
size_t strlen(const char *s) __asm__("tm_libc_strlen");
#endif

#endif

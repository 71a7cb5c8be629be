/* tm_libc_memcpy, tm_libc_memmove, tm_libc_memset: glibc's own functions, for the runtime
 * (core/libc_rename.h) and for the interposers' plain path (abi/interpose.c).
 *
 * The implementations are looked up once with dlsym(RTLD_NEXT), which finds libc's (the next
 * definitions after this library in the search order, their IFUNCs already resolved to the
 * variant for this CPU), and called through a pointer. Until that lookup has run (a call from
 * another library's constructor before ours, or from dlsym itself while it runs), a call goes
 * through glibc's checking entry points (__memcpy_chk etc., exported since glibc 2.3.4) with an
 * unlimited destination size: those reach the same implementations, but cost ~1.5 ns more per
 * call on this machine (2026-11-24), and unlike memcpy they are not names this library
 * exports, so the call cannot come back here. Built with -fno-builtin (CMakeLists.txt):
 * otherwise GCC folds __memcpy_chk(d, s, n, -1) into memcpy(d, s, n), which
 * core/libc_rename.h renames to the caller itself; and with -fno-tree-loop-distribute-patterns,
 * which keeps GCC from turning tm_boot_strlen's loop into a call of strlen. strlen (taken from
 * the program since GCC turns byte-counting loops into it too) has no checking entry point:
 * until the lookup, a byte loop. */
#define _GNU_SOURCE /* dlvsym, RTLD_NEXT */
#include <dlfcn.h>
#include <stddef.h>

#include "hooks.h"
#include "libc_direct.h"
#include "tx.h"

extern void *tm_glibc_memcpy_chk(void *, const void *, size_t, size_t) __asm__("__memcpy_chk");
extern void *tm_glibc_memmove_chk(void *, const void *, size_t, size_t) __asm__("__memmove_chk");
extern void *tm_glibc_memset_chk(void *, int, size_t, size_t) __asm__("__memset_chk");

static void *tm_boot_memcpy(void *dst, const void *src, size_t n)
{
    return tm_glibc_memcpy_chk(dst, src, n, (size_t)-1);
}

static void *tm_boot_memmove(void *dst, const void *src, size_t n)
{
    return tm_glibc_memmove_chk(dst, src, n, (size_t)-1);
}

static void *tm_boot_memset(void *dst, int c, size_t n)
{
    return tm_glibc_memset_chk(dst, c, n, (size_t)-1);
}

/* Written once by the constructor below, before any other thread can exist, and read by every
 * call: plain variables (a thread sees either pointer, and both work). */
tm_memcpy_fn *tm_libc_memcpy_p = tm_boot_memcpy;
tm_memcpy_fn *tm_libc_memmove_p = tm_boot_memmove;
tm_memset_fn *tm_libc_memset_p = tm_boot_memset;

static size_t tm_boot_strlen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}
size_t (*tm_libc_strlen_p)(const char *) = tm_boot_strlen;

/* The first of our constructors (hooks.h: TM_INIT_HOOKS), before the configuration and anything
 * of ours copies much. dlvsym asks for the versions a program built today references (glibc's
 * default ones). */
__attribute__((constructor(TM_INIT_HOOKS))) static void tm_libc_direct_init(void)
{
    void *c = dlvsym(RTLD_NEXT, "memcpy", "GLIBC_2.14");
    void *m = dlvsym(RTLD_NEXT, "memmove", "GLIBC_2.2.5");
    void *s = dlvsym(RTLD_NEXT, "memset", "GLIBC_2.2.5");
    void *l = dlvsym(RTLD_NEXT, "strlen", "GLIBC_2.2.5");
    if (l)
        tm_libc_strlen_p = (size_t (*)(const char *))l;
    if (c && m && s) {
        tm_libc_memcpy_p = (tm_memcpy_fn *)c;
        tm_libc_memmove_p = (tm_memcpy_fn *)m;
        tm_libc_memset_p = (tm_memset_fn *)s;
    }
}

TM_HIDDEN void *tm_libc_memcpy(void *dst, const void *src, size_t n)
{
    return tm_libc_memcpy_p(dst, src, n);
}

TM_HIDDEN void *tm_libc_memmove(void *dst, const void *src, size_t n)
{
    return tm_libc_memmove_p(dst, src, n);
}

TM_HIDDEN void *tm_libc_memset(void *dst, int c, size_t n)
{
    return tm_libc_memset_p(dst, c, n);
}

TM_HIDDEN size_t tm_libc_strlen(const char *s)
{
    return tm_libc_strlen_p(s);
}

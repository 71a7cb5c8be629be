/* tmkit/libc.h — a transaction-safe libc for -fgnu-tm code (included by tmkit.h).
 *
 * GCC does not know that strlen, strcmp, snprintf, strtol ... are safe inside transactions, so a
 * relaxed transaction that calls one goes serial-irrevocable (stopping every other transaction)
 * and an atomic one does not compile. With this header included, the calls below compile and
 * run inside transactions without going irrevocable, with no change to the calling code: each
 * wrapper is declared `transaction_wrap(the libc function)`, so GCC calls it instead inside
 * transactions (outside them, and on the uninstrumented path, the program calls libc as
 * before). The wrappers are `transaction_pure` and reach the transaction's memory through the
 * ABI's barriers (_ITM_RU8, _ITM_memcpyRtWn, _ITM_memcpyRnWt, ...), a word or a block at a time:
 * every read is validated, every write logged, and an abort leaves nothing behind, under every
 * tmkit algorithm and on GCC's libitm alike.
 *
 * Covered:
 *   memcmp memchr strlen strnlen strcmp strncmp strcasecmp strncasecmp strchr strrchr strstr
 *   strspn strcspn strcpy strncpy strcat strncat stpcpy strdup strndup
 *   strtol strtoul strtoll strtoull atoi atol atoll
 *   snprintf vsnprintf (our formatter for d i u o x X c s p %; floating point, ' and %lc by glibc
 *   on the value; %n, %m, %ls and positional %1$ arguments, rare in practice, make the
 *   transaction irrevocable first and then call glibc)
 *   qsort bsearch (with a transaction_safe comparator: its transactional clone is called)
 *   the <ctype.h> classifications and toupper/tolower (glibc's table lookups)
 * Left out (docs/libc.md says why): sprintf (unbounded, use snprintf), strtok (hidden state),
 * strerror, the locale-dependent strcoll/strxfrm, printf/puts/fprintf (I/O: use a lock group or
 * a commit handler).
 * Rules: a format string is read directly (it is a literal in every program we know); %s
 * arguments and everything the functions read or write through their pointer arguments go
 * through the transaction. strdup/strndup allocate with the transaction's malloc (freed if it
 * aborts). */
#ifndef TMKIT_LIBC_H
#define TMKIT_LIBC_H

#include "compat.h"

/* C only: in C++ <cstring> overloads strchr & co., which transaction_wrap cannot name (tmkit.h
 * leaves this header out there; included directly, it declares nothing). */
#ifndef __cplusplus

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "abi.h" /* the ABI calls */

#define TMKIT__LIBC_PARTS 1 /* the tmkit/libc_*.h below are parts of this header */
#include "libc_io.h"        /* reading and writing through the transaction */

/* strnlen, stpcpy, strdup and strndup are POSIX.1-2008, which a strict ISO mode without a
 * feature macro (-std=c11 alone) hides in <string.h>; transaction_wrap can only name a declared
 * function. There the same wrappers are defined (one set of symbols for the whole program) but
 * not attached, and the program cannot call those functions anyway. */
#if (defined(_POSIX_C_SOURCE) && (_POSIX_C_SOURCE - 0) >= 200809L) ||                         \
    (defined(_XOPEN_SOURCE) && (_XOPEN_SOURCE - 0) >= 700) || defined(_GNU_SOURCE)
#define TMKIT_WRAP_POSIX(fn) TMKIT_WRAP(fn)
#else
#define TMKIT_WRAP_POSIX(fn) __attribute__((transaction_pure))
#endif

/* ---- memory and strings ---- */

TMKIT_WRAPPER int tmkit_tx_memcmp(const void *, const void *, size_t) TMKIT_WRAP(memcmp);
TMKIT_WRAPPER int tmkit_tx_memcmp(const void *a, const void *b, size_t n)
{
    tmkit__rd ra = TMKIT_RD, rb = TMKIT_RD;
    uintptr_t la = (uintptr_t)a, lb = (uintptr_t)b;
    for (size_t i = 0; i < n; i++) {
        unsigned char x = tmkit__at_in(&ra, (const char *)a + i, la, la + n),
                      y = tmkit__at_in(&rb, (const char *)b + i, lb, lb + n);
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

TMKIT_WRAPPER void *tmkit_tx_memchr(const void *, int, size_t) TMKIT_WRAP(memchr);
TMKIT_WRAPPER void *tmkit_tx_memchr(const void *s, int c, size_t n)
{
    tmkit__rd r = TMKIT_RD;
    uintptr_t lo = (uintptr_t)s;
    for (size_t i = 0; i < n; i++)
        if (tmkit__at_in(&r, (const char *)s + i, lo, lo + n) == (unsigned char)c)
            return TMKIT__UNCONST(char *, s) + i;
    return NULL;
}

TMKIT_WRAPPER size_t tmkit_tx_strnlen(const char *, size_t) TMKIT_WRAP_POSIX(strnlen);
TMKIT_WRAPPER size_t tmkit_tx_strnlen(const char *s, size_t max)
{
    tmkit__rd r = TMKIT_RD;
    size_t n = 0;
    while (n < max && tmkit__at(&r, s + n))
        n++;
    return n;
}

TMKIT_WRAPPER size_t tmkit_tx_strlen(const char *) TMKIT_WRAP(strlen);
TMKIT_WRAPPER size_t tmkit_tx_strlen(const char *s) { return tmkit_tx_strnlen(s, SIZE_MAX); }
/* GCC also makes strlen calls of its own (strcat(d, "lit") becomes strlen + memcpy, strchr(s, 0)
 * becomes s + strlen(s)), under the builtin's name, which needs a wrapper of its own. */
TMKIT_WRAPPER size_t tmkit_tx_builtin_strlen(const char *) TMKIT_WRAP(__builtin_strlen);
TMKIT_WRAPPER size_t tmkit_tx_builtin_strlen(const char *s) { return tmkit_tx_strnlen(s, SIZE_MAX); }

TMKIT_PURE int tmkit__cmp(const char *a, const char *b, size_t n, int fold)
{
    tmkit__rd ra = TMKIT_RD, rb = TMKIT_RD;
    for (size_t i = 0; i < n; i++) {
        int x = tmkit__at(&ra, a + i), y = tmkit__at(&rb, b + i);
        if (fold) {
            x = (x >= 'A' && x <= 'Z') ? x + 32 : x; /* strcasecmp in the C locale */
            y = (y >= 'A' && y <= 'Z') ? y + 32 : y;
        }
        if (x != y || !x)
            return x - y;
    }
    return 0;
}

TMKIT_WRAPPER int tmkit_tx_strcmp(const char *, const char *) TMKIT_WRAP(strcmp);
TMKIT_WRAPPER int tmkit_tx_strcmp(const char *a, const char *b) { return tmkit__cmp(a, b, SIZE_MAX, 0); }
TMKIT_WRAPPER int tmkit_tx_strncmp(const char *, const char *, size_t) TMKIT_WRAP(strncmp);
TMKIT_WRAPPER int tmkit_tx_strncmp(const char *a, const char *b, size_t n) { return tmkit__cmp(a, b, n, 0); }
TMKIT_WRAPPER int tmkit_tx_strcasecmp(const char *, const char *) TMKIT_WRAP(strcasecmp);
TMKIT_WRAPPER int tmkit_tx_strcasecmp(const char *a, const char *b) { return tmkit__cmp(a, b, SIZE_MAX, 1); }
TMKIT_WRAPPER int tmkit_tx_strncasecmp(const char *, const char *, size_t) TMKIT_WRAP(strncasecmp);
TMKIT_WRAPPER int tmkit_tx_strncasecmp(const char *a, const char *b, size_t n) { return tmkit__cmp(a, b, n, 1); }

TMKIT_WRAPPER char *tmkit_tx_strchr(const char *, int) TMKIT_WRAP(strchr);
TMKIT_WRAPPER char *tmkit_tx_strchr(const char *s, int c)
{
    tmkit__rd r = TMKIT_RD;
    for (;; s++) {
        unsigned char x = tmkit__at(&r, s);
        if (x == (unsigned char)c)
            return TMKIT__UNCONST(char *, s);
        if (!x)
            return NULL;
    }
}

TMKIT_WRAPPER char *tmkit_tx_strrchr(const char *, int) TMKIT_WRAP(strrchr);
TMKIT_WRAPPER char *tmkit_tx_strrchr(const char *s, int c)
{
    tmkit__rd r = TMKIT_RD;
    const char *last = NULL;
    for (;; s++) {
        unsigned char x = tmkit__at(&r, s);
        if (x == (unsigned char)c)
            last = s;
        if (!x)
            return TMKIT__UNCONST(char *, last);
    }
}

TMKIT_WRAPPER char *tmkit_tx_strstr(const char *, const char *) TMKIT_WRAP(strstr);
TMKIT_WRAPPER char *tmkit_tx_strstr(const char *h, const char *nd)
{
    size_t m = tmkit_tx_strlen(nd);
    if (!m)
        return TMKIT__UNCONST(char *, h);
    tmkit__rd rh = TMKIT_RD;
    for (const char *p = h; tmkit__at(&rh, p); p++)
        if (tmkit__cmp(p, nd, m, 0) == 0)
            return TMKIT__UNCONST(char *, p);
    return NULL;
}

TMKIT_PURE size_t tmkit__span(const char *s, const char *set, int in)
{
    tmkit__rd r = TMKIT_RD;
    size_t n = 0;
    for (;; n++) {
        unsigned char x = tmkit__at(&r, s + n);
        if (!x || (tmkit_tx_strchr(set, x) != NULL) != in)
            return n;
    }
}

TMKIT_WRAPPER size_t tmkit_tx_strspn(const char *, const char *) TMKIT_WRAP(strspn);
TMKIT_WRAPPER size_t tmkit_tx_strspn(const char *s, const char *set) { return tmkit__span(s, set, 1); }
TMKIT_WRAPPER size_t tmkit_tx_strcspn(const char *, const char *) TMKIT_WRAP(strcspn);
TMKIT_WRAPPER size_t tmkit_tx_strcspn(const char *s, const char *set) { return tmkit__span(s, set, 0); }

/* Copies src (at most max bytes, stopping after the NUL if nul) to dst; returns the bytes
 * copied (the NUL included if it was). */
TMKIT_PURE size_t tmkit__copy(char *dst, const char *src, size_t max, int nul)
{
    tmkit__rd r = TMKIT_RD;
    tmkit__wr w;
    w.dst = dst;
    w.n = 0;
    size_t i = 0;
    for (; i < max; i++) {
        char c = (char)tmkit__at(&r, src + i);
        if (!c && !nul)
            break;
        tmkit__put(&w, c);
        if (!c) {
            i++;
            break;
        }
    }
    tmkit__flush(&w);
    return i;
}

TMKIT_WRAPPER char *tmkit_tx_strcpy(char *, const char *) TMKIT_WRAP(strcpy);
TMKIT_WRAPPER char *tmkit_tx_strcpy(char *d, const char *s) { tmkit__copy(d, s, SIZE_MAX, 1); return d; }
TMKIT_WRAPPER char *tmkit_tx_stpcpy(char *, const char *) TMKIT_WRAP_POSIX(stpcpy);
TMKIT_WRAPPER char *tmkit_tx_stpcpy(char *d, const char *s) { return d + tmkit__copy(d, s, SIZE_MAX, 1) - 1; }

TMKIT_WRAPPER char *tmkit_tx_strncpy(char *, const char *, size_t) TMKIT_WRAP(strncpy);
TMKIT_WRAPPER char *tmkit_tx_strncpy(char *d, const char *s, size_t n)
{
    size_t k = tmkit__copy(d, s, n, 0);
    tmkit__wr w;
    w.dst = d + k;
    w.n = 0;
    for (; k < n; k++) /* strncpy pads with NULs to n */
        tmkit__put(&w, 0);
    tmkit__flush(&w);
    return d;
}

TMKIT_WRAPPER char *tmkit_tx_strcat(char *, const char *) TMKIT_WRAP(strcat);
TMKIT_WRAPPER char *tmkit_tx_strcat(char *d, const char *s)
{
    tmkit__copy(d + tmkit_tx_strlen(d), s, SIZE_MAX, 1);
    return d;
}

TMKIT_WRAPPER char *tmkit_tx_strncat(char *, const char *, size_t) TMKIT_WRAP(strncat);
TMKIT_WRAPPER char *tmkit_tx_strncat(char *d, const char *s, size_t n)
{
    char *end = d + tmkit_tx_strlen(d);
    size_t k = tmkit__copy(end, s, n, 0);
    tmkit__write_block(end + k, "", 1);
    return d;
}

TMKIT_WRAPPER char *tmkit_tx_strndup(const char *, size_t) TMKIT_WRAP_POSIX(strndup);
TMKIT_WRAPPER char *tmkit_tx_strndup(const char *s, size_t n)
{
    size_t len = tmkit_tx_strnlen(s, n);
    char *d = (char *)_ITM_malloc(len + 1); /* freed if the transaction aborts */
    if (d) {
        tmkit__copy(d, s, len, 0);
        tmkit__write_block(d + len, "", 1);
    }
    return d;
}

TMKIT_WRAPPER char *tmkit_tx_strdup(const char *) TMKIT_WRAP_POSIX(strdup);
TMKIT_WRAPPER char *tmkit_tx_strdup(const char *s) { return tmkit_tx_strndup(s, SIZE_MAX); }

#include "libc_printf.h" /* snprintf's conversions */
#include "libc_fmt.h"    /* numbers, snprintf */
#include "libc_sort.h"   /* qsort/bsearch, ctype */

#endif /* !__cplusplus */
#endif

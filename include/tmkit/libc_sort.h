/* tmkit/libc_sort.h — the sorting, searching and ctype parts of the transaction-safe libc
 * (included by tmkit/libc.h, which explains the scheme, after tmkit/libc_fmt.h). */
#ifndef TMKIT__LIBC_PARTS
/* A part of tmkit/libc.h, which includes it where it belongs (and defines TMKIT__LIBC_PARTS
 * first): included directly, it brings in the whole of tmkit/libc.h. */
#include "libc.h"
#elif !defined(TMKIT_LIBC_SORT_H)
#define TMKIT_LIBC_SORT_H

/* ---- qsort, bsearch: elements read and swapped through the transaction; the comparator is
 * the transaction_safe function's clone, which reads through it too ---- */

typedef int (*tmkit__cmpfn)(const void *, const void *);

/* The comparator's transactional clone. The ABI passes functions as object pointers, which ISO
 * C does not convert to and from function pointers (POSIX and GCC do): __extension__ keeps
 * programs built with -pedantic -Werror compiling. */
TMKIT_PURE tmkit__cmpfn tmkit__clone_cmp(tmkit__cmpfn cmp)
{
    return __extension__(tmkit__cmpfn) _ITM_getTMCloneSafe(__extension__(void *) cmp);
}

TMKIT_PURE void tmkit__swap(char *a, char *b, size_t size)
{
    char ta[256], tb[256];
    for (size_t off = 0; off < size; off += sizeof ta) {
        size_t n = size - off < sizeof ta ? size - off : sizeof ta;
        tmkit__read_block(ta, a + off, n);
        tmkit__read_block(tb, b + off, n);
        tmkit__write_block(a + off, tb, n);
        tmkit__write_block(b + off, ta, n);
    }
}

/* Heap sort: no recursion, no extra memory, O(n log n). */
TMKIT_PURE void tmkit__sift(char *base, size_t root, size_t n, size_t size, tmkit__cmpfn cmp)
{
    for (size_t child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && cmp(base + child * size, base + (child + 1) * size) < 0)
            child++;
        if (cmp(base + root * size, base + child * size) >= 0)
            return;
        tmkit__swap(base + root * size, base + child * size, size);
    }
}

TMKIT_WRAPPER void tmkit_tx_qsort(void *, size_t, size_t, tmkit__cmpfn) TMKIT_WRAP(qsort);
TMKIT_WRAPPER void tmkit_tx_qsort(void *base, size_t n, size_t size, tmkit__cmpfn cmp)
{
    tmkit__cmpfn c = tmkit__clone_cmp(cmp);
    char *b = (char *)base;
    for (size_t i = n / 2; i-- > 0;)
        tmkit__sift(b, i, n, size, c);
    for (size_t end = n; end-- > 1;) {
        tmkit__swap(b, b + end * size, size);
        tmkit__sift(b, 0, end, size, c);
    }
}

TMKIT_WRAPPER void *tmkit_tx_bsearch(const void *, const void *, size_t, size_t, tmkit__cmpfn)
    TMKIT_WRAP(bsearch);
TMKIT_WRAPPER void *tmkit_tx_bsearch(const void *key, const void *base, size_t n, size_t size,
                                  tmkit__cmpfn cmp)
{
    tmkit__cmpfn c = tmkit__clone_cmp(cmp);
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *p = (const char *)base + mid * size;
        int r = c(key, p);
        if (r == 0)
            return TMKIT__UNCONST(void *, p);
        if (r < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* ---- ctype: glibc's tables are constant data of the locale, read directly ---- */

TMKIT_WRAPPER const unsigned short **tmkit_tx_ctype_b(void) TMKIT_WRAP(__ctype_b_loc);
TMKIT_WRAPPER const unsigned short **tmkit_tx_ctype_b(void) { return __ctype_b_loc(); }
TMKIT_WRAPPER const int32_t **tmkit_tx_ctype_toupper(void) TMKIT_WRAP(__ctype_toupper_loc);
TMKIT_WRAPPER const int32_t **tmkit_tx_ctype_toupper(void) { return __ctype_toupper_loc(); }
TMKIT_WRAPPER const int32_t **tmkit_tx_ctype_tolower(void) TMKIT_WRAP(__ctype_tolower_loc);
TMKIT_WRAPPER const int32_t **tmkit_tx_ctype_tolower(void) { return __ctype_tolower_loc(); }
TMKIT_WRAPPER int tmkit_tx_toupper(int) TMKIT_WRAP(toupper);
TMKIT_WRAPPER int tmkit_tx_toupper(int c) { return toupper(c); }
TMKIT_WRAPPER int tmkit_tx_tolower(int) TMKIT_WRAP(tolower);
TMKIT_WRAPPER int tmkit_tx_tolower(int c) { return tolower(c); }

#endif

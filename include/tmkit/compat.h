/* tmkit/compat.h — lets the tmkit headers (and the code that uses them) parse with compilers
 * that have no transactional memory, such as the clang front end of `tmkit advise`: the GCC TM
 * keywords become plain blocks and statements there. Nothing changes under gcc -fgnu-tm.
 * Also the helpers that all the headers share. */
#ifndef TMKIT_COMPAT_H
#define TMKIT_COMPAT_H

#if defined(__clang__) && !defined(TMKIT_NO_TM_KEYWORDS)
#define TMKIT_NO_TM 1
#ifndef __transaction_atomic
#define __transaction_atomic
#define __transaction_relaxed
#define __transaction_cancel ((void)0)
#endif
#define TMKIT_OUTER        /* no [[outer]] attribute outside GCC */
#else
#define TMKIT_OUTER [[outer]]
#endif

/* Drops const from a pointer where libc's own signatures do (strchr returns a char * into its
 * const argument). Through an integer, so that programs built with -Wcast-qual -Werror accept
 * the headers. */
#define TMKIT__UNCONST(T, p) ((T)(__UINTPTR_TYPE__)(const void *)(p))

#endif

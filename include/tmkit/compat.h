/* tmkit/compat.h — lets the tmkit headers (and the code that uses them) parse with compilers
 * that have no transactional memory, such as the clang front end of `tmkit advise`: the GCC TM
 * keywords become plain blocks and statements there. Nothing changes under gcc -fgnu-tm. */
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

#endif

/* ch_sync.h — the one place where the three builds of channels differ.
 *
 * The library (ch_sched.c, ch_chan.c, ch_proc.c) is written once, with critical sections and
 * condition waits spelled as lock-based C would spell them:
 *
 *     CH_CS_BEGIN(&x->lock);                    a plain critical section
 *     ... queue and counter updates; CH_SIGNAL(&x->cond) ...
 *     CH_CS_END(&x->lock);
 *
 *     CH_CS_WAIT_BEGIN(&x->lock);               a section that first waits for a predicate
 *     CH_WAIT_UNTIL(&x->lock, &x->cond, pred);  (the first statement; opens a block)
 *     ... body, runs once pred holds ...
 *     CH_CS_WAIT_END(&x->lock);
 *
 * Sections hold no Lua call and no system call: they move pointers and counters only. Bodies
 * must not return, break or goto out of the section. Functions called in a section are marked
 * CH_TM_SAFE.
 *
 *   CH_SYNC_LOCK (channels-lock): pthread mutexes and condition variables, as luaproc.
 *     CH_WAIT_UNTIL is `while (!pred) pthread_cond_wait(cond, lock);`.
 *   CH_SYNC_TM_BUSYWAIT (channels-tm-busywait): the TRANSACT 2013 port. Every section is a
 *     __transaction_atomic; a wait re-runs its transaction until the predicate holds (the
 *     thread spins, burning its core); signals do nothing.
 *   CH_SYNC_TM (channels-tm): every section is a transaction; a wait is tmkit's tm_atomic_retry
 *     with tm_cond_wait (include/tmkit/wait.h): the attempt rolls back and the thread sleeps in
 *     the kernel until a tm_cond_signal/broadcast of that condition commits (on GCC's libitm:
 *     a polling fallback, 1 us growing to 1 ms). CH_SIGNAL is tm_cond_signal, effective at
 *     commit.
 *
 * Exactly one of the three is defined by the build (CMakeLists.txt); CH_SYNC_NAME names it.
 */
#ifndef CH_SYNC_H
#define CH_SYNC_H

#if (defined(CH_SYNC_LOCK) + defined(CH_SYNC_TM_BUSYWAIT) + defined(CH_SYNC_TM)) != 1
#error "define exactly one of CH_SYNC_LOCK, CH_SYNC_TM_BUSYWAIT, CH_SYNC_TM"
#endif

#ifdef CH_SYNC_LOCK
#include <pthread.h>

#define CH_SYNC_NAME "lock"
#define CH_TM_SAFE
typedef pthread_mutex_t ch_lock_t;
typedef pthread_cond_t ch_cond_t;
#define CH_LOCK_INIT(l) pthread_mutex_init((l), NULL)
#define CH_LOCK_DESTROY(l) pthread_mutex_destroy(l)
#define CH_COND_INIT(c) pthread_cond_init((c), NULL)
#define CH_COND_DESTROY(c) pthread_cond_destroy(c)

#define CH_CS_BEGIN(l) pthread_mutex_lock(l)
#define CH_CS_END(l) pthread_mutex_unlock(l)
#define CH_CS_WAIT_BEGIN(l) pthread_mutex_lock(l)
#define CH_WAIT_UNTIL(l, c, pred)                                                              \
    while (!(pred))                                                                            \
        pthread_cond_wait((c), (l));                                                           \
    {
#define CH_CS_WAIT_END(l)                                                                      \
    }                                                                                          \
    pthread_mutex_unlock(l)
#define CH_SIGNAL(c) pthread_cond_signal(c)
#define CH_BROADCAST(c) pthread_cond_broadcast(c)

#else /* the two TM builds */

#define TMKIT_NO_LIBC 1 /* sections call no libc function */
#include "tmkit.h"

#define CH_TM_SAFE __attribute__((transaction_safe))
typedef struct { char unused; } ch_lock_t; /* transactions need no lock object */
#define CH_LOCK_INIT(l) ((void)(l))
#define CH_LOCK_DESTROY(l) ((void)(l))
/* `CH_CS_BEGIN(l);` opens the transaction's block (the `;` is an empty statement in it) and
 * `CH_CS_END(l);` closes it. */
#define CH_CS_BEGIN(l)                                                                         \
    (void)(l);                                                                                 \
    __transaction_atomic {
#define CH_CS_END(l) }

#ifdef CH_SYNC_TM_BUSYWAIT
#define CH_SYNC_NAME "tm-busywait"
typedef struct { char unused; } ch_cond_t;
#define CH_COND_INIT(c) ((void)(c))
#define CH_COND_DESTROY(c) ((void)(c))
/* The paper's loop: run the transaction; when the predicate is false it commits having done
 * nothing and the thread tries again at once. */
static inline void ch__spin(int done)
{
    if (!done)
        __builtin_ia32_pause();
}
#define CH_CS_WAIT_BEGIN(l)                                                                    \
    (void)(l);                                                                                 \
    for (int ch__done = 0; !ch__done; ch__spin(ch__done))                                      \
    __transaction_atomic {
#define CH_WAIT_UNTIL(l, c, pred)                                                              \
    if (pred) {                                                                                \
        ch__done = 1;
#define CH_CS_WAIT_END(l)                                                                      \
    }                                                                                          \
    }
#define CH_SIGNAL(c) ((void)(c))
#define CH_BROADCAST(c) ((void)(c))

#else /* CH_SYNC_TM */
#define CH_SYNC_NAME "tm"
typedef tm_cond_t ch_cond_t;
#define CH_COND_INIT(c) (*(c) = (tm_cond_t)TM_COND_INITIALIZER)
#define CH_COND_DESTROY(c) ((void)(c))
/* No loop: a wait rolls the whole transaction back and runs it again once signalled. */
#define CH_CS_WAIT_BEGIN(l)                                                                    \
    (void)(l);                                                                                 \
    tm_atomic_retry {
#define CH_WAIT_UNTIL(l, c, pred)                                                              \
    if (!(pred))                                                                               \
        tm_cond_wait(c);                                                                       \
    {
#define CH_CS_WAIT_END(l)                                                                      \
    }                                                                                          \
    }
#define CH_SIGNAL(c) tm_cond_signal(c)
#define CH_BROADCAST(c) tm_cond_broadcast(c)
#endif

#endif /* TM builds */

#endif

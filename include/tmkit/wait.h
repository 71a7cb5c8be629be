/* tmkit/wait.h — blocking waits inside transactions (included by tmkit.h).
 *
 *     tm_atomic_retry {                        // a transaction that may wait
 *         if (queue_empty(q))
 *             tm_retry();                      // roll back, sleep until something it read
 *         item = queue_pop(q);                 // changes, then run it again from the start
 *     }
 *
 *     tm_atomic_retry {
 *         if (queue_empty(q))
 *             tm_retry_until(deadline);        // the same, but falls through once the
 *         if (!queue_empty(q))                 // deadline (tm_deadline_in) has passed
 *             item = queue_pop(q);
 *         else
 *             timed_out = 1;
 *     }
 *
 *     tm_atomic_retry {                        // a condition variable, for code that had one
 *         if (!ready)                          // (no loop: the whole transaction runs again)
 *             tm_cond_wait(&c);                // retry until tm_cond_signal/broadcast(&c)
 *         ...                                  // commits (or tm_cond_wait_until(&c, deadline))
 *     }
 *     __transaction_atomic { ready = 1; tm_cond_signal(&c); }   // takes effect at commit
 *
 * tm_atomic_retry is `__transaction_atomic [[outer]]` inside a loop: the waits cancel the
 * outermost transaction (`__transaction_cancel [[outer]]`, which GCC accepts only in such a
 * transaction or in a function declared TM_MAY_RETRY), and that is what makes GCC compile it so
 * that it can be rolled back under every runtime mode. On tmkit the runtime rolls the attempt
 * back, sleeps in the kernel until another transaction commits a write that may change what the
 * attempt read (tm_retry), or a signal of the condition commits (tm_cond_wait), or the
 * deadline passes, and runs the transaction again: the loop runs once. On GCC's libitm (the
 * tmkit_* symbols absent) the cancel ends the transaction, and the loop runs it again after a
 * short sleep that grows to 1 ms (polling: correct, slower).
 * A wait in a nested transaction waits with the outermost one. A transaction that went
 * irrevocable (called unsafe code in __transaction_relaxed) before it waits stops the program:
 * it cannot be rolled back. Writes made outside transactions do not wake waiters.
 * Deadlines are CLOCK_MONOTONIC nanoseconds (tm_deadline_t; tm_deadline_in(ns) from now,
 * tm_deadline_at_realtime(&abstime) for a CLOCK_REALTIME timespec). */
#ifndef TMKIT_WAIT_H
#define TMKIT_WAIT_H

#include "compat.h"

#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The monotonic clock and the fallback's sleep. A strict ISO mode (-std=c99/c11/c17 without
 * _GNU_SOURCE or _POSIX_C_SOURCE) hides them in <time.h> (CLOCK_MONOTONIC is defined exactly
 * when they are shown); there the same calls go by names of our own, without declaring the
 * C library's names a second time (Linux: CLOCK_MONOTONIC is 1, clockid_t an int, and struct
 * timespec a time_t and a long on the 64-bit targets tmkit runs on). */
#ifdef CLOCK_MONOTONIC
typedef struct timespec tmkit__timespec;
#define TMKIT__CLOCK_MONOTONIC CLOCK_MONOTONIC
#define TMKIT__CLOCK_REALTIME CLOCK_REALTIME
#define tmkit__clock_gettime clock_gettime
#define tmkit__nanosleep nanosleep
#else
typedef struct {
    time_t tv_sec;
    long tv_nsec;
} tmkit__timespec;
#define TMKIT__CLOCK_MONOTONIC 1
#define TMKIT__CLOCK_REALTIME 0
int tmkit__clock_gettime(int, tmkit__timespec *) __asm__("clock_gettime");
int tmkit__nanosleep(const tmkit__timespec *, tmkit__timespec *) __asm__("nanosleep");
#endif

typedef uint64_t tm_deadline_t; /* CLOCK_MONOTONIC, ns; 0: none */

typedef struct tm_cond {
    unsigned int seq;     /* bumped by every signal */
    unsigned int waiters; /* threads asleep on it (tmkit) */
} tm_cond_t;
#define TM_COND_INITIALIZER {0, 0}

/* The runtime's side (tmkit's libitm.so.1, unversioned names); weak, so a program that uses this
 * header still links and runs against GCC's libitm, whichever library it was linked against. */
void tmkit_retry_request(uint64_t deadline_ns) __attribute__((weak, transaction_pure));
void tmkit_cond_wait_request(unsigned int *seq, uint64_t deadline_ns)
    __attribute__((weak, transaction_pure));
void tmkit_cond_signal(unsigned int *seq, int all) __attribute__((weak, transaction_pure));

/* The fallback's pending wait (GCC's libitm): set by a wait, consumed by the loop. Weak, so
 * every translation unit shares one per thread. */
extern __thread int tmkit__wait_pending __attribute__((weak));
__thread int tmkit__wait_pending __attribute__((weak));

static inline __attribute__((transaction_pure, unused)) tm_deadline_t tmkit__now_ns(void)
{
    tmkit__timespec t;
    tmkit__clock_gettime(TMKIT__CLOCK_MONOTONIC, &t);
    return (tm_deadline_t)t.tv_sec * 1000000000ull + (tm_deadline_t)t.tv_nsec;
}

/* A deadline `ns` nanoseconds from now. */
static inline __attribute__((transaction_pure, unused)) tm_deadline_t tm_deadline_in(uint64_t ns)
{
    return tmkit__now_ns() + ns;
}

/* The deadline of an absolute CLOCK_REALTIME time, such as pthread_cond_timedwait's `abstime`
 * (tm_deadline_at_realtime(&ts)): now on the monotonic clock plus what is left until that time
 * on the real-time clock, so a step of the real-time clock counts only when the deadline is
 * computed again (a tm_cond_wait_until computes it at every run of its transaction, after each
 * wake-up). A time already passed gives now (the wait falls through); more than 30 years ahead
 * counts as 30 years. */
static inline __attribute__((transaction_pure, unused)) tm_deadline_t
tmkit__deadline_realtime(long long sec, long nsec)
{
    tmkit__timespec rt;
    tmkit__clock_gettime(TMKIT__CLOCK_REALTIME, &rt);
    long long ds = sec - (long long)rt.tv_sec;
    if (ds > 1000000000LL)
        ds = 1000000000LL;
    long long left = ds * 1000000000LL + ((long long)nsec - (long long)rt.tv_nsec);
    tm_deadline_t now = tmkit__now_ns();
    return left > 0 ? now + (tm_deadline_t)left : now;
}
#define tm_deadline_at_realtime(ts) tmkit__deadline_realtime((ts)->tv_sec, (ts)->tv_nsec)

/* 1: the transaction must wait (the macro then cancels it); 0: the deadline has passed. */
static inline __attribute__((transaction_pure, unused)) int
tmkit__wait_note(unsigned int *cond_seq, tm_deadline_t deadline)
{
    if (deadline && tmkit__now_ns() >= deadline)
        return 0;
    if (cond_seq && tmkit_cond_wait_request)
        tmkit_cond_wait_request(cond_seq, deadline);
    else if (!cond_seq && tmkit_retry_request)
        tmkit_retry_request(deadline);
    else
        tmkit__wait_pending = 1; /* a plain store in pure code: the cancel does not undo it */
    return 1;
}

/* After each run of a tm_atomic_retry transaction: 1 to run it again (fallback only). */
static __attribute__((noinline, unused)) int tmkit__wait_again(int *round)
{
    __asm__ __volatile__("" ::: "memory"); /* the cancel left the flag set behind GCC's back */
    if (!tmkit__wait_pending)
        return 0;
    tmkit__wait_pending = 0;
    tmkit__timespec ts = {0, *round < 10 ? 1000L << *round : 1000000L};
    (*round)++;
    tmkit__nanosleep(&ts, 0);
    return 1;
}

/* The loop's state (tmkit__loop[0]: run again, [1]: the fallback's round) is one array whose
 * address the fallback takes, so it lives in memory: in a register, live across the
 * transaction's begin (which returns twice, like setjmp), it would draw a -Wclobbered warning
 * (-Wextra) in every program that waits. */
#define tm_atomic_retry                                                                     \
    for (int tmkit__loop[2] = {1, 0}; tmkit__loop[0];                                       \
         tmkit__loop[0] = tmkit__wait_again(&tmkit__loop[1]))                               \
    __transaction_atomic TMKIT_OUTER

/* A function that may wait on behalf of its caller's transaction. */
#define TM_MAY_RETRY __attribute__((transaction_may_cancel_outer))

#define tm_retry_until(deadline)                                                            \
    do {                                                                                    \
        if (tmkit__wait_note(0, (deadline)))                                                \
            __transaction_cancel TMKIT_OUTER;                                                 \
    } while (0)
#define tm_retry() tm_retry_until(0)

#define tm_cond_wait_until(c, deadline)                                                     \
    do {                                                                                    \
        if (tmkit__wait_note(&(c)->seq, (deadline)))                                        \
            __transaction_cancel TMKIT_OUTER;                                                 \
    } while (0)
#define tm_cond_wait(c) tm_cond_wait_until((c), 0)

/* Wake one waiter (signal) or all (broadcast): now outside a transaction, at its commit inside
 * one (never for an attempt that rolls back). */
static inline __attribute__((transaction_pure, unused)) void tmkit__cond_fire(tm_cond_t *c, int all)
{
    if (tmkit_cond_signal)
        tmkit_cond_signal(&c->seq, all);
    /* fallback: waiters poll (tmkit__wait_again), nothing to wake */
}
#define tm_cond_signal(c) tmkit__cond_fire((c), 0)
#define tm_cond_broadcast(c) tmkit__cond_fire((c), 1)

#ifdef __cplusplus
}
#endif
#endif

/* tmkit/group.h — lock groups: LockSTM's way to keep irrevocable sections out of the serial lock
 * (included by tmkit.h).
 *
 *     static tm_group_t log_group = TM_GROUP_INITIALIZER;   // the data the print touches
 *
 *     // a non-revocable section (I/O): plain code, holding its groups exclusively
 *     tm_group_lock(&log_group);
 *     fprintf(out, "%ld primes so far\n", found);
 *     tm_group_unlock(&log_group);
 *
 *     // a transaction that shares data with it: enter the group before the transaction
 *     tm_group_enter(&log_group);
 *     __transaction_atomic { found++; }
 *     tm_group_exit(&log_group);
 *
 *     // every other transaction: nothing to do; it never waits for the print
 *
 * A group names a set of shared data that some section which cannot be rolled back touches. That
 * section takes its groups with tm_group_lock and runs as plain code (or a relaxed transaction);
 * the transactions that touch the same data take the groups in shared mode with tm_group_enter
 * *before* they begin, and run speculatively; transactions that touch none of it take nothing.
 * So the irrevocable section waits only for the transactions it shares data with, and the
 * others never wait for it; without groups it would go serial-irrevocable and stop every
 * transaction in the process. `tmkit advise` finds the groups (docs/advise.md).
 * - Each call names one or more groups, optionally ending with NULL: tm_group_enter(&a, &b).
 *   Groups are taken in one fixed order (their addresses) whatever the order named, so two
 *   calls never deadlock; a second call that would take a group below one the thread already
 *   holds is refused with a message (take them in one call). Taking a group again nests.
 * - Shared mode writes no shared cache line (a store to the thread's own slot); a waiting
 *   tm_group_lock lets no new shared holder in, so it is not starved.
 * - Inside a transaction the calls compose, as a nested transaction does: a function whose
 *   sections take groups may be called from inside another section's transaction (the calls are
 *   transaction_pure). A group entered there is joined without waiting (if a writer holds it,
 *   the attempt rolls back, waits and runs again) and held until the outermost transaction ends;
 *   tm_group_lock there makes the transaction irrevocable. A transaction that may already be
 *   irrevocable must not wait for a group whose holder begins a transaction (docs/groups.md).
 * - Not across processes. The profile counts the calls and their waits, and the exclusive
 *   holds' time, at the call's site (`tmkit report`).
 * On GCC's libitm (the tmkit_* symbols absent) a group is a pthread read-write lock, and a call
 * inside a transaction takes it there and then. */
#ifndef TMKIT_GROUP_H
#define TMKIT_GROUP_H

#include <pthread.h>
#include <stddef.h>

#include "compat.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The fallback's read-write lock. A strict ISO mode (-std=c99/c11/c17 without _GNU_SOURCE or
 * _POSIX_C_SOURCE) hides POSIX's read-write locks in <pthread.h> (PTHREAD_RWLOCK_INITIALIZER is
 * defined exactly when they are shown); tm_group_t must keep one layout in every translation
 * unit, so there it holds the same storage as glibc's pthread_rwlock_t (a union of these
 * sizes), whose static initializer is all zeros, and the calls go by names of our own. */
#ifdef PTHREAD_RWLOCK_INITIALIZER
typedef pthread_rwlock_t tmkit__rwlock_t;
#define TMKIT__RWLOCK_INITIALIZER PTHREAD_RWLOCK_INITIALIZER
#define tmkit__rwlock_rdlock pthread_rwlock_rdlock
#define tmkit__rwlock_wrlock pthread_rwlock_wrlock
#define tmkit__rwlock_unlock pthread_rwlock_unlock
#elif defined(__SIZEOF_PTHREAD_RWLOCK_T)
typedef union {
    char size_[__SIZEOF_PTHREAD_RWLOCK_T];
    long align_;
} tmkit__rwlock_t;
#define TMKIT__RWLOCK_INITIALIZER {{0}}
int tmkit__rwlock_rdlock(tmkit__rwlock_t *) __asm__("pthread_rwlock_rdlock");
int tmkit__rwlock_wrlock(tmkit__rwlock_t *) __asm__("pthread_rwlock_wrlock");
int tmkit__rwlock_unlock(tmkit__rwlock_t *) __asm__("pthread_rwlock_unlock");
#else
#error "tmkit/group.h: <pthread.h> shows no read-write locks: define _POSIX_C_SOURCE=200809L"
#endif

typedef struct tm_group {
    unsigned int state;       /* tmkit: held and sleepers bits (the futex word) */
    unsigned int pad_;
    tmkit__rwlock_t fallback; /* GCC's libitm: the group is this lock (a pthread_rwlock_t) */
} tm_group_t;
#define TM_GROUP_INITIALIZER {0, 0, TMKIT__RWLOCK_INITIALIZER}

/* transaction_pure: inside a transaction they run as they are, and the runtime composes them
 * with it (it reads the list through the transaction's barriers). */
void tmkit_group_enter(tm_group_t *const *groups) __attribute__((weak, transaction_pure));
void tmkit_group_exit(tm_group_t *const *groups) __attribute__((weak, transaction_pure));
void tmkit_group_lock(tm_group_t *const *groups) __attribute__((weak, transaction_pure));
void tmkit_group_unlock(tm_group_t *const *groups) __attribute__((weak, transaction_pure));

enum { TMKIT__GROUP_ENTER, TMKIT__GROUP_EXIT, TMKIT__GROUP_LOCK, TMKIT__GROUP_UNLOCK };

#ifndef TMKIT_NO_TM
/* The libitm fallback: the list in address order (the one order), each lock taken once. (Not
 * shown to the clang front end of `tmkit advise`, which would take its read-write lock calls
 * for the program's own critical sections.) */
static inline __attribute__((unused)) int tmkit__group_sorted(tm_group_t *const *list, tm_group_t **out)
{
    int n = 0;
    for (; *list && n < 16; list++) {
        int i = n;
        while (i > 0 && out[i - 1] > *list)
            i--;
        if (i > 0 && out[i - 1] == *list)
            continue;
        for (int k = n; k > i; k--)
            out[k] = out[k - 1];
        out[i] = *list;
        n++;
    }
    return n;
}

static inline __attribute__((transaction_pure, unused)) void tmkit__group_fallback(int op, tm_group_t *const *list)
{
    tm_group_t *g[16];
    int n = tmkit__group_sorted(list, g);
    for (int k = 0; k < n; k++) {
        tm_group_t *x = op == TMKIT__GROUP_EXIT || op == TMKIT__GROUP_UNLOCK ? g[n - 1 - k] : g[k];
        if (op == TMKIT__GROUP_ENTER)
            tmkit__rwlock_rdlock(&x->fallback);
        else if (op == TMKIT__GROUP_LOCK)
            tmkit__rwlock_wrlock(&x->fallback);
        else
            tmkit__rwlock_unlock(&x->fallback);
    }
}
#else
void tmkit__group_fallback(int op, tm_group_t *const *list);
#endif

/* Always inlined, so that the profile's site is the caller's line. Direct calls only: GCC
 * takes it for transaction-safe (it calls only the pure functions above), so it may be called
 * inside transactions and from transaction_safe functions; a call through a pointer would make
 * the unoptimized build's transaction ask the runtime for a clone, which goes irrevocable. */
static inline __attribute__((always_inline, unused)) void tmkit__group_do(int op, tm_group_t *const *list)
{
    if (op == TMKIT__GROUP_ENTER && tmkit_group_enter)
        tmkit_group_enter(list);
    else if (op == TMKIT__GROUP_EXIT && tmkit_group_exit)
        tmkit_group_exit(list);
    else if (op == TMKIT__GROUP_LOCK && tmkit_group_lock)
        tmkit_group_lock(list);
    else if (op == TMKIT__GROUP_UNLOCK && tmkit_group_unlock)
        tmkit_group_unlock(list);
    else
        tmkit__group_fallback(op, list);
}

#ifdef __cplusplus
}
/* C++: the same calls, as function templates (a compound literal array is C only). */
template <typename... G> inline __attribute__((always_inline)) void tmkit__group_call(int op, G... g)
{
    tm_group_t *const list[] = {g..., nullptr};
    tmkit__group_do(op, list);
}
template <typename... G> inline __attribute__((always_inline)) void tm_group_enter(G... g)
{
    tmkit__group_call(TMKIT__GROUP_ENTER, g...);
}
template <typename... G> inline __attribute__((always_inline)) void tm_group_exit(G... g)
{
    tmkit__group_call(TMKIT__GROUP_EXIT, g...);
}
template <typename... G> inline __attribute__((always_inline)) void tm_group_lock(G... g)
{
    tmkit__group_call(TMKIT__GROUP_LOCK, g...);
}
template <typename... G> inline __attribute__((always_inline)) void tm_group_unlock(G... g)
{
    tmkit__group_call(TMKIT__GROUP_UNLOCK, g...);
}
#else
#define TMKIT__GROUP_LIST(...) ((tm_group_t *const[]){__VA_ARGS__, NULL})
#define tm_group_enter(...) tmkit__group_do(TMKIT__GROUP_ENTER, TMKIT__GROUP_LIST(__VA_ARGS__))
#define tm_group_exit(...) tmkit__group_do(TMKIT__GROUP_EXIT, TMKIT__GROUP_LIST(__VA_ARGS__))
#define tm_group_lock(...) tmkit__group_do(TMKIT__GROUP_LOCK, TMKIT__GROUP_LIST(__VA_ARGS__))
#define tm_group_unlock(...) tmkit__group_do(TMKIT__GROUP_UNLOCK, TMKIT__GROUP_LIST(__VA_ARGS__))
#endif
#endif

/* The runtime's system calls, which leave errno alone.
 *
 * A transaction must not change the thread's errno (GCC's libitm never does): C code reads errno
 * after a failed call, and a transaction may stand between the two, such as a statistics update
 * after a failed write. The runtime's own waits fail routinely (FUTEX_WAIT returns EAGAIN when
 * the word moved before the call, a sleep returns EINTR on a signal), and libc's syscall()
 * stores such failures in errno. These call it and put errno back, returning the kernel's
 * result: the value, or -E on failure. They still go through syscall(), which the unit tests'
 * preload shim counts (tests/unit/count_sleeps.c). Only waits and rare paths call them: the
 * cost, two reads and a write of a thread-local word, is nothing beside a system call.
 * (tests/conformance/mt_errno_kept.c checks errno across transactions that wait.)
 */
#ifndef TMKIT_CORE_SYS_H
#define TMKIT_CORE_SYS_H

#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline long tm_sys6(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
    int saved = errno;
    long r = syscall(nr, a1, a2, a3, a4, a5, a6);
    if (r == -1)
        r = -(long)errno;
    errno = saved;
    return r;
}

static inline long tm_sys3(long nr, long a1, long a2, long a3)
{
    return tm_sys6(nr, a1, a2, a3, 0, 0, 0);
}

/* Sleeps while *w holds val (a wake, a changed word or a signal ends it: callers recheck). */
static inline void tm_futex_wait(_Atomic uint32_t *w, uint32_t val)
{
    tm_sys6(SYS_futex, (long)w, FUTEX_WAIT_PRIVATE, val, 0, 0, 0);
}

/* Wakes up to n sleepers on w. */
static inline void tm_futex_wake(_Atomic uint32_t *w, int n)
{
    tm_sys6(SYS_futex, (long)w, FUTEX_WAKE_PRIVATE, n, 0, 0, 0);
}

#endif

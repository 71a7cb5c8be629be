/* LD_PRELOAD shim for test_serial_wait.sh and test_waits.sh: counts the raw nanosleep and
 * membarrier system calls a program makes through syscall(2) (how core/serial_wait.c sleeps,
 * how core/bias.c forces a barrier on every thread) and reports the counts on stderr at exit
 * as "count_sleeps: N" and "count_membarriers: M". Everything else passes through to libc's
 * syscall. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>

static long (*real_syscall)(long, ...);
static long sleeps, membarriers;

long syscall(long nr, ...)
{
    va_list ap;
    va_start(ap, nr);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    if (nr == SYS_nanosleep)
        __atomic_fetch_add(&sleeps, 1, __ATOMIC_RELAXED);
    if (nr == SYS_membarrier)
        __atomic_fetch_add(&membarriers, 1, __ATOMIC_RELAXED);
    if (!real_syscall)
        real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

__attribute__((destructor)) static void count_sleeps_report(void)
{
    fprintf(stderr, "count_sleeps: %ld\ncount_membarriers: %ld\n",
            __atomic_load_n(&sleeps, __ATOMIC_RELAXED),
            __atomic_load_n(&membarriers, __ATOMIC_RELAXED));
}

/* LD_PRELOAD shim for test_serial_wait.sh: counts the raw nanosleep system calls a program
 * makes through syscall(2) (how core/serial_wait.c sleeps) and reports the count on stderr at
 * exit as "count_sleeps: N". Everything else passes through to libc's syscall. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>

static long (*real_syscall)(long, ...);
static long sleeps;

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
    if (!real_syscall)
        real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

__attribute__((destructor)) static void count_sleeps_report(void)
{
    fprintf(stderr, "count_sleeps: %ld\n", __atomic_load_n(&sleeps, __ATOMIC_RELAXED));
}

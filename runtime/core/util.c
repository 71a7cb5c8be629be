/* Small helpers shared by the runtime: fatal errors, checked allocation, spin back-off. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sched.h>

#include "tx.h"

void tm_fatal(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if (n > (int)sizeof msg - 2)
        n = (int)sizeof msg - 2;
    msg[n++] = '\n';
    /* write(2), not stdio: this may run with stdio locks held or from a corrupted state. */
    ssize_t r = write(2, "tmkit: ", 7);
    r = write(2, msg, (size_t)n);
    (void)r;
    abort();
}

void *tm_xrealloc(void *p, size_t n, const char *what)
{
    void *q = realloc(p, n);
    if (!q && n)
        tm_fatal("out of memory growing the %s to %zu bytes", what, n);
    return q;
}

void tm_cpu_relax(unsigned iteration)
{
    /* Spin briefly, then give the core away: with more threads than cores the thread we wait
     * for may not be running at all. */
    if (iteration < 64)
        __builtin_ia32_pause();
    else
        sched_yield();
}

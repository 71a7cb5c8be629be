/* Small helpers shared by the runtime: fatal errors, checked allocation (and what a log of a
 * running transaction does when it cannot grow), spin back-off. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sched.h>

#include "tx.h"

void tm_fatal(const char *fmt, ...)
{
    char msg[512] = "tmkit: ";
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg + 7, sizeof msg - 8, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    n += 7;
    if (n > (int)sizeof msg - 2)
        n = (int)sizeof msg - 2;
    msg[n++] = '\n';
    /* write(2), not stdio: this may run with stdio locks held or from a corrupted state. One
     * call, so that two threads stopping at once do not interleave their lines. */
    ssize_t r = write(2, msg, (size_t)n);
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

/* A log of the running attempt could not grow (realloc failed; docs/reliability.md, "Faults").
 * A speculative attempt whose program has an uninstrumented code path and no
 * __transaction_cancel restarts serial-irrevocable, the one mode that keeps no log: its
 * rollback needs no memory (the undo log already holds every location written, the redo log is
 * dropped), and the caller left the log as it was before the growth. Anything else (a
 * transaction that can cancel needs its undo log in every mode, an irrevocable one cannot roll
 * back) stops the process with a message naming the log. */
static __attribute__((noreturn, cold, noinline)) void tm_log_full(const char *what, size_t n)
{
    tm_tx *tx = tm_cur;
    if (tx && tx->nesting && !(tx->flags & (TM_F_IRREVOCABLE | TM_F_HTM | TM_F_SERIAL)) &&
        (tx->prop & pr_uninstrumentedCode) &&
        ((tx->prop & pr_hasNoAbort) || !(tx->prop & pr_instrumentedCode)))
        tm_restart(tx, TM_ABORT_SERIAL); /* the next attempt is direct (begin.c) */
    tm_fatal("out of memory growing the %s to %zu bytes in a transaction that cannot run "
             "without it (it can be cancelled, or already runs serially)", what, n);
}

void *tm_log_grow(void *p, size_t n, const char *what)
{
    void *q = realloc(p, n);
    if (TM_UNLIKELY(!q && n))
        tm_log_full(what, n);
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

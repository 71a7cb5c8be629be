/* Privatization safety without commit-time quiescence for NOrec and gl_wt: doomed readers that
 * fault are restarted.
 *
 * Privatization (Spear, Marathe, Dalessandro, Scott, "Privatization techniques for software
 * transactional memory", PODC 2007) breaks two ways: a committed writer still writing back
 * into memory its privatizer now owns (delayed cleanup), and a doomed transaction reading
 * memory the privatizer now uses. NOrec and gl_wt have no delayed cleanup (memory changes only
 * while the writer holds the one global lock, after validation), and their readers check the
 * global clock after every load before a value reaches the program, so a doomed reader never
 * uses a privatized value. What is left is the load itself: the privatizer may have freed the
 * memory and the allocator unmapped it, and the doomed reader's load faults. Quiescence (every
 * writer waiting for all concurrent transactions, core/serial.c) prevents that at a cost of
 * 2-40% at two threads; this file makes the fault harmless instead.
 *
 * A SIGSEGV/SIGBUS handler, installed at the first transaction of the process when
 * TMKIT_PRIVATIZATION=auto: if the faulting thread is in a speculative attempt of a mode with
 * a `doomed` test and that test says the attempt can no longer commit (the global clock moved
 * past its snapshot and it is not the one writing memory), the handler points the interrupted
 * context at tm_guard_restart, which restarts the attempt after the kernel's sigreturn has
 * restored the signal mask. Every other fault goes to the handler that was installed before
 * ours, or to the default action (the fault recurs and the process dies as it would have).
 * A fault of a valid attempt is a real bug; one of a doomed attempt is retried at most
 * max_retries times before the transaction runs serially, where faults are never swallowed.
 *
 * Not under valgrind (see tm_guard_install). If the program later replaces our handler, the
 * guard is gone: each thread checks the disposition at its first transaction and every 4096
 * transactions after (with its id block, thread.c) and writers quiesce again until our
 * handler is back.
 */
#define _GNU_SOURCE /* REG_RIP, REG_RSP */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#include "config.h"
#include "tx.h"

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h> /* RUNNING_ON_VALGRIND: a no-op instruction sequence natively */
#else
#define RUNNING_ON_VALGRIND 0
#endif

_Atomic bool tm_guard_active;
static struct sigaction tm_guard_prev[2]; /* SIGSEGV, SIGBUS: what was installed before us */
static const int tm_guard_sigs[2] = {SIGSEGV, SIGBUS};
static bool tm_guard_installed; /* set once, at the first transaction (pthread_once) */

/* Entered instead of the faulting instruction, on the thread's own stack, as if called. */
static __attribute__((noreturn, used)) void tm_guard_restart(void)
{
    tm_restart(tm_cur, TM_ABORT_VALIDATE);
}

static bool tm_guard_doomed(const tm_tx *tx)
{
    /* Speculative modes have a `doomed` test; it stays in force through an upgrade's
     * validation (which re-reads the read log) and is gone once rollback has switched the
     * attempt to the direct mode, so user undo actions never run under it. */
    return tx && tx->nesting && !(tx->flags & (TM_F_IRREVOCABLE | TM_F_BIASED)) &&
           tx->disp->doomed && tx->disp->doomed(tx);
}

static void tm_guard_chain(int sig, siginfo_t *info, void *uc)
{
    const struct sigaction *prev = &tm_guard_prev[sig == SIGBUS];
    if (prev->sa_flags & SA_SIGINFO) {
        prev->sa_sigaction(sig, info, uc);
    } else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
        prev->sa_handler(sig);
    } else {
        /* The default action, as if we had never been installed: a hardware fault recurs when
         * we return; a signal sent with kill() is raised again (blocked until we return). */
        atomic_store_explicit(&tm_guard_active, false, memory_order_relaxed);
        signal(sig, SIG_DFL);
        if (info->si_code <= 0)
            raise(sig);
    }
}

static void tm_guard_handler(int sig, siginfo_t *info, void *ucv)
{
    tm_tx *tx = tm_cur;
    if (info->si_code <= 0 || !tm_guard_doomed(tx)) { /* si_code <= 0: sent, not a fault */
        tm_guard_chain(sig, info, ucv);
        return;
    }
    ucontext_t *uc = ucv;
    greg_t *r = uc->uc_mcontext.gregs;
    /* Below the red zone, 16-byte aligned, minus a (never used) return address: the stack as
     * tm_guard_restart expects it after a call. */
    uintptr_t sp = (((uintptr_t)r[REG_RSP] - 128) & ~(uintptr_t)15) - 8;
    *(uintptr_t *)sp = 0;
    r[REG_RSP] = (greg_t)sp;
    r[REG_RIP] = (greg_t)(uintptr_t)tm_guard_restart;
}

static bool tm_guard_is_ours(const struct sigaction *sa)
{
    return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == tm_guard_handler;
}

void tm_guard_install(void)
{
    /* Under valgrind memcheck a doomed reader's load of freed memory is an error report, so
     * there writers keep quiescing (the handler would also work, but the run must be clean). */
    if (tm_config.privatization != TM_PRIV_AUTO || RUNNING_ON_VALGRIND)
        return;
    /* Only where some mode can use it (adaptive's modes include gl_wt, and NOrec with
     * TMKIT_ADAPTIVE_MODES=all). */
    const tm_dispatch *d = tm_config.algo->disp;
    if (!tm_config.algo->managed && !(d && d->doomed))
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = tm_guard_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 2; i++) {
        struct sigaction old;
        if (sigaction(tm_guard_sigs[i], NULL, &old) != 0 || tm_guard_is_ours(&old))
            continue;
        tm_guard_prev[i] = old;
        if (sigaction(tm_guard_sigs[i], &sa, NULL) != 0)
            return; /* stays inactive: writers quiesce */
    }
    tm_guard_installed = true;
    tm_guard_refresh();
}

void tm_guard_refresh(void)
{
    if (!tm_guard_installed)
        return;
    bool ours = true;
    for (int i = 0; i < 2; i++) {
        struct sigaction cur;
        ours = ours && sigaction(tm_guard_sigs[i], NULL, &cur) == 0 && tm_guard_is_ours(&cur);
    }
    /* relaxed: a writer that still sees the old value quiesces needlessly or, for the few
     * transactions until the store is visible, relies on a handler just replaced; no ordering
     * with other data would close that window. */
    atomic_store_explicit(&tm_guard_active, ours, memory_order_relaxed);
}

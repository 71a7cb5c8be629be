/* Lock groups compose across calls (one thread): a function whose section enters a group is
 * called from inside another transaction, as `tmkit advise` leaves a rewritten callee. Each case
 * checks the thread's holds afterwards by what the runtime then allows: tm_group_lock of a
 * group this thread still held in shared mode would be refused (the program stops), tm_group_exit
 * of one it no longer held too.
 * - join: a transaction calls the section twice (joins the group, enters it again after its
 *   exit); after the commit the group is free: it can be locked.
 * - nest: the group entered before the transaction; the callee's enter nests; one exit after
 *   the commit gives it back.
 * - abort: the outermost transaction cancels after the callee joined: the group is given back.
 * - inner cancel: a nested transaction that enters (nests and joins) and leaves groups cancels:
 *   the counts are those before it, and the outer transaction goes on to join a group.
 * - restart: an attempt that nests and joins rolls back (tm_retry_until) and runs again: the
 *   counts at the second attempt's start are those before the transaction.
 * - lock inside: a relaxed transaction's callee locks a group and makes it irrevocable (I/O on
 *   a pipe, only on one path, so GCC does not start it irrevocable), then unlocks it.
 * - region: plain code holding a group exclusively runs a transaction whose callee enters the
 *   same group (nests) and a higher one (joins), and locks the held one again (nests).
 * The data each section writes is checked too (cancelled ones leave nothing). */
// TMTEST: tmkit-only=on GCC's libitm a lock group is a read-write lock taken where the call is; a transaction that enters a group it took before, or a cancel, cannot give it back
#include <fcntl.h>
#include <unistd.h>

#include "harness.h"
#include <tmkit.h>

static tm_group_t g[3] = {TM_GROUP_INITIALIZER, TM_GROUP_INITIALIZER, TM_GROUP_INITIALIZER};
static long a, b, c;
static int fds[2], do_io = 1;
static long attempts;

static __attribute__((transaction_pure)) void count_attempt(void) { attempts++; }
static __attribute__((transaction_pure)) int irrevocable_now(void)
{
    return _ITM_inTransaction() == th_inIrrevocableTransaction;
}

/* A hybrid section of group 0, as the advisor writes it. */
__attribute__((transaction_safe, noinline)) static void section_a(void)
{
    tm_group_enter(&g[0]);
    __transaction_atomic { a++; }
    tm_group_exit(&g[0]);
}

/* Two groups in one call, named out of order. */
__attribute__((transaction_safe, noinline)) static void section_ab(void)
{
    tm_group_enter(&g[1], &g[0]);
    __transaction_atomic {
        a++;
        b++;
    }
    tm_group_exit(&g[0], &g[1]);
}

static int irrevocable_seen;

/* Each group free: locking it works (it would stop the program if this thread held it shared,
 * and hang if another did). */
static void all_free(void)
{
    tm_group_lock(&g[0], &g[1], &g[2]);
    tm_group_unlock(&g[0], &g[1], &g[2]);
}

int main(void)
{
    th_check_runtime();
    CHECK(pipe(fds) == 0);

    /* join, twice in one transaction */
    __transaction_atomic {
        section_a();
        section_a();
        section_ab();
    }
    CHECK_EQ(a, 3);
    CHECK_EQ(b, 1);
    all_free();

    /* nest: entered before, given back once after */
    tm_group_enter(&g[0]);
    __transaction_atomic {
        section_a();
        section_ab();
    }
    tm_group_exit(&g[0]);
    CHECK_EQ(a, 5);
    all_free();

    /* abort: the outermost transaction cancels */
    __transaction_atomic {
        section_ab();
        if (a == 6)
            __transaction_cancel;
    }
    CHECK_EQ(a, 5);
    CHECK_EQ(b, 2);
    all_free();

    /* inner cancel: closed nesting, around a hold taken before */
    tm_group_enter(&g[0]);
    __transaction_atomic {
        __transaction_atomic {
            tm_group_enter(&g[0], &g[1]); /* nests g0, joins g1 */
            b += 10;
            tm_group_exit(&g[0]);         /* g0 back to its depth before; g1 still held */
            if (b > 11)
                __transaction_cancel;
        }
        section_a(); /* nests g0 (held before); the cancelled join of g1 is gone */
        tm_group_enter(&g[1]);
        b++;
        tm_group_exit(&g[1]);
    }
    tm_group_exit(&g[0]); /* once: the depth the cancel restored */
    CHECK_EQ(a, 6);
    CHECK_EQ(b, 3);
    all_free();

    /* restart: the first attempt nests and joins, then waits for a deadline and runs again */
    tm_group_enter(&g[0]);
    attempts = 0;
    tm_deadline_t d = tm_deadline_in(2000000);
    tm_atomic_retry {
        count_attempt();
        section_a();
        tm_group_enter(&g[0], &g[1]);
        tm_retry_until(d);
        b++;
        tm_group_exit(&g[1], &g[0]);
    }
    tm_group_exit(&g[0]);
    CHECK(attempts >= 2);
    CHECK_EQ(a, 7);
    CHECK_EQ(b, 4);
    all_free();

    /* lock inside a relaxed transaction: irrevocable from the lock on */
    __transaction_relaxed {
        section_a();
        /* a non-revocable section of group 2 (in the transaction's own code, so that it runs
         * in the attempt: a call of an unsafe function would go irrevocable before it) */
        tm_group_lock(&g[2]);
        irrevocable_seen = irrevocable_now();
        if (do_io)
            CHECK(write(fds[1], "io", 2) == 2);
        c++;
        tm_group_unlock(&g[2]);
        a++;
    }
    CHECK_EQ(irrevocable_seen, 1);
    CHECK_EQ(a, 9);
    CHECK_EQ(c, 1);
    char buf[8];
    CHECK(read(fds[0], buf, sizeof buf) == 2 && buf[0] == 'i');
    all_free();

    /* region: plain code holding g0 exclusively runs a transaction that enters g0 (nests) and
     * g1 (joins: above g0), and locks g0 again (nests: no switch to irrevocable needed) */
    tm_group_lock(&g[0]);
    a = 100;
    __transaction_atomic {
        section_a();
        section_ab();
        tm_group_lock(&g[0]);
        a++;
        tm_group_unlock(&g[0]);
    }
    CHECK_EQ(a, 103);
    tm_group_unlock(&g[0]);
    all_free();

    puts("ok");
    return 0;
}

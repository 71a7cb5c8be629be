/* tmkit.h closures in C: tm_on_commit / tm_on_abort run exactly when they should, once, in
 * order, with the values captured at registration (even values written earlier in the same
 * transaction), from callees, under cancel and under real conflicts. */
// TMTEST: cflags=-Og -Wtrampolines -Werror=trampolines
// TMTEST: valgrind=yes
// TMTEST: valgrind-div=4
#include "harness.h"
#include "tmkit.h"

static long log_buf[64];
static int log_n;
static long shared_counter;

static void note(long v) { log_buf[log_n++] = v; }

__attribute__((transaction_safe)) static void register_from_callee(long v)
{
    long local = v * 10; /* dies when this function returns; the handler keeps a copy */
    tm_on_commit(local) { note(local); }
}

static void test_order_and_values(void)
{
    log_n = 0;
    long a = 1, b = 2;
    __transaction_atomic {
        a = 5; /* written in the transaction (redo log under norec) before capture */
        tm_on_commit(a) { note(a); }
        tm_on_commit(a, b) { note(a * 100 + b); }
        a = 6; /* after registration: the handler keeps 5 */
        register_from_callee(7);
        tm_on_abort(a) { note(-a); }
    }
    CHECK_EQ(log_n, 3);
    CHECK_EQ(log_buf[0], 5);
    CHECK_EQ(log_buf[1], 502);
    CHECK_EQ(log_buf[2], 70);
}

static void test_cancel(void)
{
    log_n = 0;
    int cancel = 1;
    long x = 3;
    __transaction_atomic {
        tm_on_commit(x) { note(x); }
        tm_on_abort(x) { note(-x); }
        tm_on_abort() { note(-1000); }
        if (cancel)
            __transaction_cancel;
    }
    tmkit_compiler_barrier(); /* abort handlers wrote memory GCC thinks a cancel left alone */
    /* abort handlers in reverse registration order, commit handler never */
    CHECK_EQ(log_n, 2);
    CHECK_EQ(log_buf[0], -1000);
    CHECK_EQ(log_buf[1], -3);
}

static void test_nested_cancel(void)
{
    log_n = 0;
    int cancel = 1;
    __transaction_atomic {
        tm_on_commit() { note(1); }
        __transaction_atomic {
            tm_on_commit() { note(2); }
            tm_on_abort() { note(-2); }
            if (cancel)
                __transaction_cancel;
        }
        tm_on_commit() { note(3); }
    }
    tmkit_compiler_barrier();
    CHECK_EQ(log_n, 3);
    CHECK_EQ(log_buf[0], -2); /* inner abort handler ran at the inner cancel */
    CHECK_EQ(log_buf[1], 1);
    CHECK_EQ(log_buf[2], 3);
}

static void test_outside(void)
{
    log_n = 0;
    long v = 9;
    tm_on_commit(v) { note(v); } /* no transaction: runs now */
    tm_on_abort(v) { note(-v); } /* never */
    CHECK_EQ(log_n, 1);
    CHECK_EQ(log_buf[0], 9);
}

static long commits_seen[16];

static void *worker(void *arg)
{
    long id = (long)(intptr_t)arg;
    long n = th_iters(20000);
    for (long i = 0; i < n; i++) {
        __transaction_atomic {
            shared_counter++;
            tm_on_commit(id) { commits_seen[id]++; }
        }
    }
    return NULL;
}

int main(void)
{
    th_check_runtime();
    test_order_and_values();
    test_cancel();
    test_nested_cancel();
    test_outside();
    int t = th_threads() > 16 ? 16 : th_threads();
    shared_counter = 0;
    th_run(t, worker);
    long total = 0;
    for (int i = 0; i < t; i++) {
        CHECK_EQ(commits_seen[i], th_iters(20000)); /* once per commit, despite restarts */
        total += commits_seen[i];
    }
    CHECK_EQ(shared_counter, total);
    return 0;
}

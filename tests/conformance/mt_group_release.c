/* Lock groups inside transactions against another thread's exclusive holds, step by step (two
 * threads taking turns; each step's outcome is fixed, whatever the algorithm):
 * 1. join waits: the helper holds the group exclusively and changes its data in two plain
 *    steps; a transaction whose callee enters the group meanwhile must see only the end state
 *    (an attempt that joined while the helper was in would see the middle one).
 * 2. held until the commit: a transaction whose callee entered and left the group goes on for
 *    a while; the helper's tm_group_lock meanwhile must not get the group before the commit, and
 *    then sees the transaction's writes.
 * 3. given back at a cancel: the same transaction cancels; the helper gets the group, and the
 *    cancelled write is not there.
 * 4. lock inside: a relaxed transaction's tm_group_lock while the helper holds the group
 *    exclusively waits for it, then makes the transaction irrevocable (a write(2) to a pipe on
 *    one path), and the transaction sees the helper's end state.
 * 5. lock inside excludes: while a relaxed transaction holds the group by tm_group_lock and
 *    changes its data in two steps, the helper's tm_group_enter (before its own transaction)
 *    waits, and its transaction sees only the end state.
 * Time is what separates the threads' steps (each waits tens of milliseconds where the other
 * must act): a late step makes the test pass without checking, never fail. */
// TMTEST: tmkit-only=on GCC's libitm a lock group is a read-write lock taken where the call is, inside the transaction: a transaction cannot wait for it by rolling back, and a cancel does not give it back
#include <fcntl.h>
#include <unistd.h>

#include "harness.h"
#include <tmkit.h>

static tm_group_t g = TM_GROUP_INITIALIZER;
static long x, y;        /* the group's data */
static int phase;        /* which step the main thread is at (atomics) */
static int fds[2], do_io = 1, cancel_it = 1;

static __attribute__((transaction_pure)) void set_phase(int p)
{
    __atomic_store_n(&phase, p, __ATOMIC_RELEASE);
}
static void wait_phase(int p)
{
    while (__atomic_load_n(&phase, __ATOMIC_ACQUIRE) < p)
        usleep(200);
}
static __attribute__((transaction_pure)) void pause_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}
static double t2; /* when step 2's attempt told the helper to go (atomics) */
static int rolled_back;
static __attribute__((transaction_pure)) void stamp_t2(void)
{
    double t = th_now();
    __atomic_store(&t2, &t, __ATOMIC_RELAXED);
}
static void note_rollback(void *arg)
{
    (void)arg;
    __atomic_store_n(&rolled_back, 1, __ATOMIC_RELAXED);
}
/* Registered after the section's join, so that it runs before the rollback gives the group
 * back (undo actions run in reverse order). */
static __attribute__((transaction_pure)) void watch_rollback(void)
{
    _ITM_addUserUndoAction(note_rollback, NULL);
}
static __attribute__((transaction_pure)) int irrevocable_now(void)
{
    return _ITM_inTransaction() == th_inIrrevocableTransaction;
}

/* The callee: a hybrid section of the group, as the advisor writes it. */
__attribute__((transaction_safe, noinline)) static long read_x(void)
{
    long v;
    tm_group_enter(&g);
    __transaction_atomic { v = x; }
    tm_group_exit(&g);
    return v;
}

static void *helper(void *arg)
{
    (void)arg;
    /* 1 */
    tm_group_lock(&g);
    x = 1;
    set_phase(1);
    pause_ms(50);
    x = 2;
    tm_group_unlock(&g);
    /* 2: the main thread's transaction has left its section and still runs for 30 ms */
    wait_phase(2);
    tm_group_lock(&g);
    double t_lock = th_now(), t;
    __atomic_load(&t2, &t, __ATOMIC_RELAXED);
    /* its commit came first, with its write: unless that attempt rolled back and gave the
     * group up (then a later attempt waits for us) */
    if (!__atomic_load_n(&rolled_back, __ATOMIC_RELAXED)) {
        CHECK(t_lock - t >= 0.029);
        CHECK_EQ(y, 1);
    }
    tm_group_unlock(&g);
    /* 3 */
    wait_phase(3);
    tm_group_lock(&g);
    CHECK_EQ(y, 1); /* the cancel undid y = 2 before it gave the group back */
    tm_group_unlock(&g);
    set_phase(4);
    /* 4 */
    tm_group_lock(&g);
    x = 5;
    set_phase(5);
    pause_ms(50);
    x = 6;
    tm_group_unlock(&g);
    /* 5 */
    wait_phase(7);
    long v;
    tm_group_enter(&g);
    __transaction_atomic { v = x; }
    tm_group_exit(&g);
    CHECK_EQ(v, 9);
    return NULL;
}

int main(void)
{
    th_check_runtime();
    CHECK(pipe(fds) == 0);
    pthread_t h;
    CHECK(pthread_create(&h, NULL, helper, NULL) == 0);

    /* 1 */
    wait_phase(1);
    long v;
    __transaction_atomic { v = read_x(); }
    CHECK_EQ(v, 2);

    /* 2 */
    __transaction_atomic {
        v = read_x();
        watch_rollback();
        y = 1;
        stamp_t2();
        set_phase(2);
        pause_ms(30);
    }
    CHECK_EQ(v, 2);

    /* 3 */
    __transaction_atomic {
        v = read_x();
        y = 2;
        set_phase(3);
        pause_ms(30);
        if (cancel_it)
            __transaction_cancel;
    }
    CHECK_EQ(y, 1);

    /* 4 */
    wait_phase(5);
    int irrev = 0;
    __transaction_relaxed {
        tm_group_lock(&g);
        irrev = irrevocable_now();
        v = x;
        if (do_io)
            CHECK(write(fds[1], "4", 1) == 1);
        x = 7;
        tm_group_unlock(&g);
    }
    CHECK_EQ(v, 6);
    CHECK_EQ(x, 7);
    CHECK_EQ(irrev, 1);
    char c;
    CHECK(read(fds[0], &c, 1) == 1 && c == '4');

    /* 5 */
    __transaction_relaxed {
        tm_group_lock(&g);
        x = 8;
        set_phase(7);
        pause_ms(30);
        x = 9;
        if (do_io)
            CHECK(write(fds[1], "5", 1) == 1);
        tm_group_unlock(&g);
    }
    CHECK(pthread_join(h, NULL) == 0);
    CHECK_EQ(x, 9);
    tm_group_lock(&g); /* free, and not held by this thread */
    tm_group_unlock(&g);
    puts("ok");
    return 0;
}

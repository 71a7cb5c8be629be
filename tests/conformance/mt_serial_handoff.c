/* The serial lock hands over promptly, whether its waiters are still in their passive phase or
 * already asleep until the unlock (tmkit: core/serial_wait.c), and an irrevocable transaction
 * still excludes them all.
 *
 * Rounds: thread 0 runs an irrevocable transaction (a volatile store makes it so) that holds
 * for 0.3 ms (its waiters are still sleeping passively when it ends) or 30 ms (they have
 * registered and sleep until the unlock wakes them), and notes the time just before it
 * commits; the other threads, let go once it is inside, each commit one increment of a shared
 * counter. Checks:
 *  - the counter did not move while the irrevocable transaction ran;
 *  - no waiter committed before the holder's release time;
 *  - every waiter committed within 1 s of it (generous: the passive phase lasts ~1 ms and a
 *    wake-up microseconds; a waiter nobody wakes would hang, one polling far too slowly would
 *    exceed it; 250 ms once failed with 8 threads on 2 busy vCPUs at load 11, where the
 *    scheduler alone can keep a woken thread off the CPU that long);
 *  - the counter equals the number of increments.
 * Then a ping-pong: threads 0 and 1 pass a turn back and forth 300 times each, every wait a
 * loop of transactions that read it; each hand-off costs at most one passive sleep, so it ends
 * well within the 10 s checked here.
 */
#include <sched.h>

#include "harness.h"

#define ROUNDS 6
#define PINGS 300

static long counter;
static volatile int sink;
static int inside;            /* round + 1 while thread 0 is inside its irrevocable transaction */
static int finished;          /* waiters done with the current round */
static double release_at[ROUNDS];
static long moved;            /* irrevocable transactions that saw the counter move */
static int turn;
static long hops;
static int n_threads;

static void holder(void)
{
    for (int r = 0; r < ROUNDS; r++) {
        double hold = (r & 1) ? 0.03 : 0.0003;
        __transaction_relaxed {
            sink = r; /* unsafe: irrevocable from here on */
            long before = counter;
            __atomic_store_n(&inside, r + 1, __ATOMIC_RELEASE);
            double t0 = th_now();
            while (th_now() - t0 < hold)
                sink = r;
            if (counter != before)
                moved++;
            release_at[r] = th_now();
        }
        /* next round once every waiter has committed this one's increment */
        while (__atomic_load_n(&finished, __ATOMIC_ACQUIRE) < (r + 1) * (n_threads - 1))
            sched_yield();
    }
}

static void waiter(double *worst)
{
    for (int r = 0; r < ROUNDS; r++) {
        while (__atomic_load_n(&inside, __ATOMIC_ACQUIRE) < r + 1)
            sched_yield();
        __transaction_atomic { counter++; }
        double done = th_now();
        /* release_at[r] was written before the holder's commit released the lock, which our
         * commit waited for. */
        double late = done - release_at[r];
        CHECK(late >= 0);
        if (late > *worst)
            *worst = late;
        __atomic_fetch_add(&finished, 1, __ATOMIC_RELEASE);
    }
}

static void ping(int me)
{
    for (int i = 0; i < PINGS; i++) {
        for (;;) {
            int mine;
            __transaction_atomic {
                mine = turn == me;
                if (mine) {
                    turn = 1 - me;
                    hops++;
                }
            }
            if (mine)
                break;
            sched_yield();
        }
    }
}

static double worst_late[1024];

static void *worker(void *arg)
{
    int me = (int)(intptr_t)arg;
    if (me == 0)
        holder();
    else
        waiter(&worst_late[me]);
    if (me < 2)
        ping(me);
    return NULL;
}

int main(void)
{
    th_check_runtime();
    n_threads = th_threads() < 2 ? 2 : th_threads();
    CHECK(n_threads <= 1024);
    double t0 = th_now();
    th_run(n_threads, worker);
    double elapsed = th_now() - t0;
    double worst = 0;
    for (int i = 1; i < n_threads; i++)
        if (worst_late[i] > worst)
            worst = worst_late[i];
    CHECK_EQ(moved, 0);
    CHECK_EQ(counter, (long)ROUNDS * (n_threads - 1));
    CHECK(worst < 1.0);
    CHECK_EQ(hops, 2L * PINGS);
    CHECK(elapsed < 10.0);
    printf("mt_serial_handoff: %d threads, latest waiter %.2f ms after the release, %.2f s\n",
           n_threads, worst * 1e3, elapsed);
    return 0;
}

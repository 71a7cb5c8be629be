/* tm_retry's semantics, with a second thread as the one that makes the condition true:
 *  A: an attempt that waits is rolled back completely before it sleeps: its writes are undone
 *     (the other thread never sees them), its commit handlers never run, its abort handlers do,
 *     its allocation is freed (the count of live allocations is checked);
 *  B: a wait in a nested transaction waits with the outermost, and on wake-up the outermost
 *     runs again from its start (its own side effects counted per attempt);
 *  C: a timed retry whose condition becomes true before the deadline returns with it; one whose
 *     condition never does falls through after the deadline, not before;
 *  D: the waiter is woken by a thread that commits and then exits at once;
 *  E: a condition wait until an absolute CLOCK_REALTIME time (tm_deadline_at_realtime, what
 *     tmkit advise writes for pthread_cond_timedwait) falls through once that time has come, and
 *     at once for a time already passed.
 * The tests pass a token between the threads through one shared variable. */
#include "harness.h"
#include <tmkit.h>

static long flag, data, side;
static long starts_outer;
static int commit_ran, abort_ran;
static long live_allocs;

static void note_abort(void *p) { (void)p; __atomic_fetch_add(&abort_ran, 1, __ATOMIC_RELAXED); }
static void note_commit(void *p) { (void)p; __atomic_fetch_add(&commit_ran, 1, __ATOMIC_RELAXED); }

__attribute__((transaction_pure)) static void count_start(void)
{
    __atomic_fetch_add(&starts_outer, 1, __ATOMIC_RELAXED);
}
__attribute__((transaction_pure)) static void *counted_malloc_note(void *p)
{
    if (p)
        __atomic_fetch_add(&live_allocs, 1, __ATOMIC_RELAXED);
    return p;
}
static void free_note(void *p)
{
    __atomic_fetch_sub(&live_allocs, 1, __ATOMIC_RELAXED);
    (void)p;
}

static void *setter(void *arg)
{
    long delay_us = (long)(intptr_t)arg;
    usleep((useconds_t)delay_us);
    __transaction_atomic { flag = 1; }
    return NULL; /* D: exits right after its commit */
}

static void start_setter(pthread_t *t, long delay_us)
{
    CHECK(pthread_create(t, NULL, setter, (void *)(intptr_t)delay_us) == 0);
}

int main(void)
{
    th_check_runtime();
    pthread_t t;

    /* A */
    flag = 0;
    start_setter(&t, 20000);
    long observed_side = -1;
    tm_atomic_retry {
        side = 42; /* undone by each waiting attempt */
        void *p = counted_malloc_note(malloc(64));
        _ITM_addUserCommitAction(free_note, 1, p);
        _ITM_addUserUndoAction(free_note, p); /* the runtime frees p on abort; we count it */
        _ITM_addUserCommitAction(note_commit, 1, NULL);
        _ITM_addUserUndoAction(note_abort, NULL);
        if (!flag)
            tm_retry();
        observed_side = side;
        free(p);
    }
    CHECK(pthread_join(t, NULL) == 0);
    CHECK_EQ(observed_side, 42);
    CHECK_EQ(commit_ran, 1);
    CHECK(abort_ran >= 1); /* the setter waits 20 ms: the first attempt waited */
    CHECK_EQ(live_allocs, 0);

    /* B: nested */
    flag = 0;
    starts_outer = 0;
    start_setter(&t, 20000);
    long inner_saw = 0;
    tm_atomic_retry {
        count_start();
        data++;
        __transaction_atomic {
            if (!flag)
                tm_retry();
            inner_saw = flag;
        }
    }
    CHECK(pthread_join(t, NULL) == 0);
    CHECK_EQ(inner_saw, 1);
    CHECK_EQ(data, 1); /* the outer increment of every waiting attempt was undone */
    CHECK(starts_outer >= 2);

    /* C: timed, condition comes first */
    flag = 0;
    start_setter(&t, 10000);
    tm_deadline_t dl = tm_deadline_in(5ull * 1000000000ull);
    int expired = 0;
    tm_atomic_retry {
        if (!flag)
            tm_retry_until(dl);
        expired = !flag;
    }
    CHECK(pthread_join(t, NULL) == 0);
    CHECK_EQ(expired, 0);
    CHECK(tm_deadline_in(0) < dl);

    /* C: timed, condition never comes */
    flag = 0;
    uint64_t t0 = tm_deadline_in(0);
    dl = tm_deadline_in(30 * 1000000ull);
    tm_atomic_retry {
        if (!flag)
            tm_retry_until(dl);
        expired = !flag;
    }
    CHECK_EQ(expired, 1);
    CHECK(tm_deadline_in(0) >= dl);
    CHECK(tm_deadline_in(0) - t0 < 5ull * 1000000000ull);

    /* E: a CLOCK_REALTIME deadline 30 ms ahead, then one 1 s ago */
    static tm_cond_t never = TM_COND_INITIALIZER;
    struct timespec at;
    CHECK(clock_gettime(CLOCK_REALTIME, &at) == 0);
    at.tv_nsec += 30 * 1000000L;
    if (at.tv_nsec >= 1000000000L) {
        at.tv_sec++;
        at.tv_nsec -= 1000000000L;
    }
    flag = 0;
    t0 = tm_deadline_in(0);
    tm_atomic_retry {
        if (!flag)
            tm_cond_wait_until(&never, tm_deadline_at_realtime(&at));
        expired = !flag;
    }
    CHECK_EQ(expired, 1);
    CHECK(tm_deadline_in(0) - t0 >= 25 * 1000000ull);
    CHECK(tm_deadline_in(0) - t0 < 5ull * 1000000000ull);
    at.tv_sec -= 2;
    t0 = tm_deadline_in(0);
    tm_atomic_retry {
        if (!flag)
            tm_cond_wait_until(&never, tm_deadline_at_realtime(&at));
    }
    CHECK(tm_deadline_in(0) - t0 < 1000000000ull);
    puts("ok");
    return 0;
}

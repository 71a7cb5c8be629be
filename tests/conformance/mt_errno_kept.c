/* A transaction leaves errno as it found it.
 *
 * C code reads errno after a failed call, and a transaction may stand between the two (a
 * statistics update after a failed write, say). Under GCC's libitm a transaction that waits or
 * restarts never changes errno; the runtime's own waits (futexes, sleeps, barriers) must not
 * either, although their system calls fail routinely (FUTEX_WAIT returns EAGAIN when the word
 * moved before the call). Half of the threads run irrevocable transactions (relaxed ones that
 * make volatile stores) that hold the serial lock for a while, so that the others' transactions
 * wait for it and the holders for each other; the others set errno to a value of their own before each transaction and check it
 * after, and also inside (a transaction that has waited and restarted must still see it). A
 * shared counter checks the transactions all ran.
 */
#include <errno.h>
#include <sched.h>

#include "harness.h"

static long counter;
static int stop_flag;
static int started; /* checkers that have finished a transaction: the holders start after all */
static long holder_iters;
static volatile int sink;

static void *holder(void *arg)
{
    (void)arg;
    for (long i = 0; i < holder_iters; i++) {
        __transaction_relaxed {
            for (int k = 0; k < 300; k++)
                sink = k; /* unsafe: irrevocable from the first store, holding the serial lock */
            counter++;
        }
        /* no sched_yield here: with 4 threads on 2 cores each yield could cost the holder a
         * scheduler slice behind the checkers (~1 ms), and the run 1.7 s instead of 0.02 */
    }
    return NULL;
}

struct result {
    long done, changed_after, changed_inside;
};

static void *checker(void *arg)
{
    long me = (long)(intptr_t)arg;
    struct result *r = calloc(1, sizeof *r);
    CHECK(r != NULL);
    while (!__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE)) {
        /* a value no system call sets, different each time */
        int mark = 100000 + (int)((me * 7919 + r->done) % 100000);
        long bad_inside = 0;
        errno = mark;
        __transaction_atomic {
            if (errno != mark) /* errno is thread-local: a plain read is the thread's own */
                bad_inside = 1;
            counter++;
        }
        if (errno != mark)
            r->changed_after++;
        r->changed_inside += bad_inside;
        if (r->done++ == 0)
            __atomic_add_fetch(&started, 1, __ATOMIC_RELEASE);
    }
    return r;
}

int main(void)
{
    th_check_runtime();
    int n = th_threads();
    int n_hold = n / 2 > 0 ? n / 2 : 1, n_check = n - n / 2 > 0 ? n - n / 2 : 1;
    holder_iters = th_iters(2000) / n_hold;
    pthread_t *th = calloc((size_t)n_hold, sizeof *th), *tc = calloc((size_t)n_check, sizeof *tc);
    CHECK(th && tc);
    for (int i = 0; i < n_check; i++)
        CHECK(pthread_create(&tc[i], NULL, checker, (void *)(intptr_t)i) == 0);
    /* on a loaded machine the holders could otherwise finish before a checker ran at all */
    while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < n_check)
        sched_yield();
    for (int i = 0; i < n_hold; i++)
        CHECK(pthread_create(&th[i], NULL, holder, NULL) == 0);
    for (int i = 0; i < n_hold; i++)
        CHECK(pthread_join(th[i], NULL) == 0);
    __atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
    long done = 0, after = 0, inside = 0;
    for (int i = 0; i < n_check; i++) {
        struct result *r;
        CHECK(pthread_join(tc[i], (void **)&r) == 0);
        done += r->done;
        after += r->changed_after;
        inside += r->changed_inside;
        free(r);
    }
    free(th);
    free(tc);
    printf("mt_errno_kept: %d holders, %d checkers, %ld checked transactions, errno changed "
           "%ld times after and %ld inside\n", n_hold, n_check, done, after, inside);
    CHECK(done > 0);
    CHECK_EQ(after, 0);
    CHECK_EQ(inside, 0);
    CHECK_EQ(counter, done + (long)n_hold * holder_iters);
    return 0;
}

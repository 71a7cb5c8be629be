/* A transaction that waits (tm_cond_wait) while its thread holds a lock group in shared mode,
 * and a non-revocable section that must take the group exclusively to produce what it waits
 * for: the wait gives the shared hold up while it sleeps, as pthread_cond_wait gives up its
 * mutex, and takes it back before the transaction runs again. Without that, the producer waits
 * for the sleeping consumer forever. Consumers take ITEMS items in all; the producer pushes them
 * one by one as plain code under the group (with a write(2) in its section) and signals. Each
 * item is taken once; at the end the queue is empty. */
// TMTEST: threads=2
// TMTEST: libitm=skip:on GCC's libitm a lock group is a read-write lock and a wait polls; the wait cannot give up the group while it polls, so the producer never gets it
#include <fcntl.h>
#include <unistd.h>

#include "harness.h"
#include <tmkit.h>

#define CAP 8

static tm_group_t gq = TM_GROUP_INITIALIZER;
static tm_cond_t not_empty = TM_COND_INITIALIZER;
static long queue[CAP], head, tail, items, taken_sum, taken_count;
static int devnull;

static void *producer(void *arg)
{
    (void)arg;
    for (long i = 1; i <= items;) {
        tm_group_lock(&gq);
        int pushed = 0;
        if (tail - head < CAP) { /* plain code: the group excludes the consumers */
            queue[tail % CAP] = i;
            tail++;
            pushed = 1;
            CHECK(write(devnull, "p", 1) == 1);
        }
        tm_group_unlock(&gq);
        if (pushed) {
            tm_cond_signal(&not_empty);
            i++;
        } else {
            usleep(50);
        }
    }
    return NULL;
}

static void *consumer(void *arg)
{
    long share = (long)(intptr_t)arg, sum = 0, v = 0;
    for (long k = 0; k < share; k++) {

        tm_group_enter(&gq);
        tm_atomic_retry {
            if (head == tail)
                tm_cond_wait(&not_empty);
            v = queue[head % CAP];
            head++;
        }
        tm_group_exit(&gq);
        sum += v;
    }
    __atomic_fetch_add(&taken_sum, sum, __ATOMIC_RELAXED);
    __atomic_fetch_add(&taken_count, share, __ATOMIC_RELAXED);
    return NULL;
}

int main(void)
{
    th_check_runtime();
    devnull = open("/dev/null", O_WRONLY);
    CHECK(devnull >= 0);
    int nc = th_threads() > 1 ? th_threads() - 1 : 1;
    long share = th_iters(4000) / nc;
    items = share * nc;
    pthread_t p, *c = (pthread_t *)calloc((size_t)nc, sizeof *c);
    for (int i = 0; i < nc; i++)
        CHECK(pthread_create(&c[i], NULL, consumer, (void *)(intptr_t)share) == 0);
    CHECK(pthread_create(&p, NULL, producer, NULL) == 0);
    CHECK(pthread_join(p, NULL) == 0);
    for (int i = 0; i < nc; i++)
        CHECK(pthread_join(c[i], NULL) == 0);
    CHECK_EQ(taken_count, items);
    CHECK_EQ(taken_sum, items * (items + 1) / 2);
    CHECK_EQ(head, tail);
    free(c);
    puts("ok");
    return 0;
}

/* Lock groups: the first shared entry of a group, racing its writers (ext/group_protocol.c:
 * tm_group_first_shared). A group that was never entered in shared mode lets a writer skip the
 * barrier and the drain; the first reader marks it by a read-modify-write ordered with the
 * writers'. Here every group is fresh when the threads reach it together: for each of NG groups
 * in turn, all threads meet at a barrier, then thread 0 moves a unit from a[i] to b[i] in plain
 * code holding the group exclusively (a[i] + b[i] is -1 in between), MOVES times, while the
 * others enter it in shared mode and read a[i], then b[i], in a transaction: a reader that got
 * in beside the writer would see the sum off by one (with the drain skipped at every lock, 4
 * threads saw it in every run). At the end: no torn sum, every move made. Under every
 * algorithm, with 2+ threads and more threads than cores. */
// TMTEST: threads=2
#include "harness.h"
#include <tmkit.h>

#define NG 6000
#define MOVES 3

static tm_group_t g[NG];
static long a[NG], b[NG];
static long torn, reads;
static pthread_barrier_t meet;

/* pure: called inside the readers' transactions too, between their two reads */
static __attribute__((transaction_pure, noinline)) void spin(int n)
{
    for (volatile int k = 0; k < n; k++)
        ;
}

static void *run(void *arg)
{
    int me = (int)(intptr_t)arg;
    long bad = 0, r = 0;
    for (int i = 0; i < NG; i++) {
        pthread_barrier_wait(&meet);
        for (int m = 0; m < MOVES; m++) {
            if (me == 0) {
                tm_group_lock(&g[i]);
                a[i]--;
                spin(1000); /* the half-done move, wide enough for a reader to fall into */
                b[i]++;
                tm_group_unlock(&g[i]);
                continue;
            }
            long s;
            tm_group_enter(&g[i]);
            __transaction_atomic {
                s = a[i];
                spin(2000); /* a reader let in beside the writer sees its move half done */
                s += b[i];
            }
            tm_group_exit(&g[i]);
            bad += s != 0;
            r++;
        }
    }
    __atomic_fetch_add(&torn, bad, __ATOMIC_RELAXED);
    __atomic_fetch_add(&reads, r, __ATOMIC_RELAXED);
    return NULL;
}

int main(void)
{
    th_check_runtime();
    for (int i = 0; i < NG; i++)
        g[i] = (tm_group_t)TM_GROUP_INITIALIZER;
    int nt = th_threads();
    if (nt < 2)
        nt = 2;
    CHECK(pthread_barrier_init(&meet, NULL, (unsigned)nt) == 0);
    pthread_t *t = (pthread_t *)calloc((size_t)nt, sizeof *t);
    for (int i = 0; i < nt; i++)
        CHECK(pthread_create(&t[i], NULL, run, (void *)(intptr_t)i) == 0);
    for (int i = 0; i < nt; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    CHECK_EQ(torn, 0);
    CHECK_EQ(reads, (long)(nt - 1) * NG * MOVES);
    for (int i = 0; i < NG; i++) {
        CHECK_EQ(a[i], -MOVES);
        CHECK_EQ(b[i], MOVES);
    }
    free(t);
    puts("ok");
    return 0;
}

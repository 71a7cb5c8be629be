/* linecost: the cost of moving one cache line between two cores (docs/scaling.md). Two threads
 * take turns writing one shared word (thread k waits until the word is k mod 2, then adds 1):
 * every turn moves the line to the other core. Prints ns per transfer (median of 5 runs).
 * Usage: linecost [TURNS] (default 2,000,000 a run; the ctest smoke test, which checks only that
 * it runs and prints its line, takes fewer: beside another test on the 2 cores a pinned player
 * whose core is busy leaves the other spinning for a time slice each turn). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Alignas(64) volatile long word;
static long turns = 2000000;

static void *player(void *arg)
{
    long me = (long)arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)me, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    for (long v = me; v < turns; v += 2) {
        while (__atomic_load_n(&word, __ATOMIC_ACQUIRE) != v)
            __builtin_ia32_pause();
        __atomic_store_n(&word, v + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }

int main(int argc, char **argv)
{
    if (argc > 2 || (argc == 2 && (turns = atol(argv[1])) < 2)) {
        fprintf(stderr, "usage: linecost [TURNS >= 2]\n");
        return 2;
    }
    double r[5];
    for (int k = 0; k < 5; k++) {
        word = 0;
        struct timespec t0, t1;
        pthread_t t[2];
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (long i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, player, (void *)i);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        r[k] = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / turns;
    }
    qsort(r, 5, sizeof r[0], cmp);
    printf("bench=linecost ns_per_transfer=%.1f min=%.1f max=%.1f\n", r[2], r[0], r[4]);
    return 0;
}

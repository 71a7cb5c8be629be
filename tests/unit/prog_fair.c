/* Threads whose transactions doom each other, each with an equal share of the work (the shape
 * of STAMP's genome under gl_wt: core/fair.c). Every transaction reads WALK words of a shared
 * array, then moves one unit between two of its words, so every commit writes and, under gl_wt,
 * dooms every transaction that began before it. Each thread counts its commits in a progress
 * word outside the transactions; the first thread to finish its share records how far the
 * others had got.
 *
 * Usage: prog_fair THREADS OPS_PER_THREAD WALK WORK (iterations of a private loop after each)
 * Prints "laggard=P" (the least progress of the others, per mille, when the first finished) and
 * "ok=1" if the array still sums to zero; exits 1 if it does not. */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define WORDS 4096

static long data[WORDS];
static long nthreads, ops, walk, work;
static _Atomic long progress[64];
static _Atomic int finished;
static _Atomic long laggard = -1;

static void *worker(void *arg)
{
    long id = (long)arg;
    unsigned long x = 0x9e3779b97f4a7c15ull * (unsigned long)(id + 1);
    for (long i = 0; i < ops; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        long start = (long)(x % WORDS), from = (long)((x >> 20) % WORDS), to = (long)((x >> 40) % WORDS);
        __transaction_atomic {
            long s = 0;
            for (long k = 0; k < walk; k++)
                s += data[(start + k) % WORDS];
            long unit = 1 + (s == LONG_MIN); /* the reads' sum is used: never LONG_MIN here */
            data[from] -= unit;
            data[to] += unit;
        }
        for (volatile long w = 0; w < work; w++) /* private work between transactions */
            ;
        /* relaxed: read only for the report below, after the first finisher's exchange */
        atomic_store_explicit(&progress[id], i + 1, memory_order_relaxed);
    }
    if (atomic_exchange(&finished, 1) == 0) {
        long least = ops;
        for (long t = 0; t < nthreads; t++)
            if (t != id) {
                long p = atomic_load_explicit(&progress[t], memory_order_relaxed);
                if (p < least)
                    least = p;
            }
        atomic_store(&laggard, least * 1000 / ops);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 5 || (nthreads = atol(argv[1])) < 1 || nthreads > 64 || (ops = atol(argv[2])) < 1 ||
        (walk = atol(argv[3])) < 1 || walk > WORDS || (work = atol(argv[4])) < 0) {
        fprintf(stderr, "usage: prog_fair THREADS(1-64) OPS_PER_THREAD WALK(1-%d) WORK\n", WORDS);
        return 2;
    }
    pthread_t th[64];
    for (long t = 0; t < nthreads; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)t) != 0) {
            perror("pthread_create");
            return 2;
        }
    for (long t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    long sum = 0;
    for (long k = 0; k < WORDS; k++)
        sum += data[k];
    printf("laggard=%ld ok=%d\n", atomic_load(&laggard), sum == 0);
    return sum == 0 ? 0 : 1;
}

/* A thread that commits short writing transactions back to back beside threads whose long
 * transactions read what it writes (core/fair.c). Under gl_wt every commit of the short ones
 * dooms the long ones that began before it, so without a turn of their own the long ones
 * restart until the short writer happens to pause: adaptive, which counts the process's
 * commits, sees the short writer's and keeps gl_wt.
 *
 * Usage: prog_starve LONG_THREADS LONG_OPS WALK
 * One short writer, and LONG_THREADS threads that each commit LONG_OPS transactions of WALK
 * reads and one write. Prints "short=N long=M" (the commits of each kind; the short writer
 * stops when the long ones are done) and "ok=1" if the array still sums to zero (exit 1 if not). */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define WORDS 1024

static long data[WORDS];
static long nlong, ops, walk;
static _Atomic int done;
static _Atomic long short_commits, long_commits;

static void *shorter(void *arg)
{
    (void)arg;
    unsigned long x = 88172645463325252ull;
    long n = 0;
    while (!atomic_load_explicit(&done, memory_order_relaxed)) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        long a = (long)(x % WORDS), b = (long)((x >> 32) % WORDS);
        __transaction_atomic {
            data[a] -= 1;
            data[b] += 1;
        }
        n++;
    }
    atomic_store(&short_commits, n);
    return NULL;
}

static void *longer(void *arg)
{
    unsigned long x = 0x9e3779b97f4a7c15ull * (unsigned long)((long)arg + 1);
    for (long i = 0; i < ops; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        long start = (long)(x % WORDS), to = (long)((x >> 32) % WORDS);
        __transaction_atomic {
            long s = 0;
            for (long k = 0; k < walk; k++)
                s += data[(start + k) % WORDS];
            long unit = 1 + (s == LONG_MIN); /* the sum is used: never LONG_MIN here */
            data[start] -= unit;
            data[to] += unit;
        }
        atomic_fetch_add(&long_commits, 1);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4 || (nlong = atol(argv[1])) < 1 || nlong > 63 || (ops = atol(argv[2])) < 1 ||
        (walk = atol(argv[3])) < 1 || walk > WORDS) {
        fprintf(stderr, "usage: prog_starve LONG_THREADS(1-63) LONG_OPS WALK(1-%d)\n", WORDS);
        return 2;
    }
    pthread_t s, l[63];
    if (pthread_create(&s, NULL, shorter, NULL) != 0)
        return perror("pthread_create"), 2;
    for (long t = 0; t < nlong; t++)
        if (pthread_create(&l[t], NULL, longer, (void *)t) != 0)
            return perror("pthread_create"), 2;
    for (long t = 0; t < nlong; t++)
        pthread_join(l[t], NULL);
    atomic_store(&done, 1);
    pthread_join(s, NULL);
    long sum = 0;
    for (long k = 0; k < WORDS; k++)
        sum += data[k];
    printf("short=%ld long=%ld ok=%d\n", atomic_load(&short_commits), atomic_load(&long_commits),
           sum == 0);
    return sum == 0 ? 0 : 1;
}

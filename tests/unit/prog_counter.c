/* A small -fgnu-tm program for the packaging and statistics tests: T threads (default 2) x N
 * increments of one shared counter and of each thread's own counter, checked. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 64

static long counter, n_each;
static struct {
    long v;
    char pad[56];
} own[MAX_THREADS];

static void *work(void *arg)
{
    long *mine = &own[(long)arg].v;
    for (long i = 0; i < n_each; i++) {
        __transaction_atomic { counter++; }
        __transaction_atomic { ++*mine; }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    n_each = argc > 1 ? atol(argv[1]) : 10000;
    int threads = argc > 2 ? atoi(argv[2]) : 2;
    if (n_each < 0 || threads < 1 || threads > MAX_THREADS) {
        fprintf(stderr, "usage: prog_counter [N [THREADS 1-%d]]\n", MAX_THREADS);
        return 2;
    }
    pthread_t t[MAX_THREADS];
    for (long i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, work, (void *)i);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    int bad = counter != threads * n_each;
    for (int i = 0; i < threads; i++)
        bad |= own[i].v != n_each;
    if (bad) {
        fprintf(stderr, "lost updates: %ld != %ld\n", counter, threads * n_each);
        return 1;
    }
    return 0;
}

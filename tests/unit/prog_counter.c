/* A small -fgnu-tm program for the packaging tests: 2 threads x N increments, checked. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long counter;

static void *work(void *arg)
{
    long n = (long)arg;
    for (long i = 0; i < n; i++)
        __transaction_atomic { counter++; }
    return NULL;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, work, (void *)n);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    if (counter != 2 * n) {
        fprintf(stderr, "lost updates: %ld != %ld\n", counter, 2 * n);
        return 1;
    }
    return 0;
}

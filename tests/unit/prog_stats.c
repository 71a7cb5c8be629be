/* Known behaviour for the statistics tests (test_stats.sh finds the marked lines). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long counter, cancelled;
static FILE *devnull;

static void *hammer(void *arg)
{
    long n = (long)arg;
    for (long i = 0; i < n; i++)
        __transaction_atomic { counter++; } /* SITE_COUNTER */
    return NULL;
}

int main(void)
{
    devnull = fopen("/dev/null", "w");
    int always = 1;
    for (int i = 0; i < 1000; i++)
        __transaction_atomic { /* SITE_CANCEL */
            cancelled++;
            if (always)
                __transaction_cancel;
        }
    for (int i = 0; i < 100; i++)
        __transaction_relaxed { /* SITE_PRINTF */
            counter += 0;
            if (i % 2 == 0)
                fprintf(devnull, "%d\n", i); /* UNSAFE_CALL */
        }
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, hammer, (void *)200000L);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return counter == 400000 && cancelled == 0 ? 0 : 1;
}

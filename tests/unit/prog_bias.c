/* Known behaviour for test_bias.sh: thread B runs one transaction and then idles while thread A
 * runs N transactions on a shared counter (no contention after B's first). Under a serial
 * algorithm A's transactions either run serially (the serial lock: TMKIT_BIAS=single, since
 * B is registered) or, after a streak, biased (TMKIT_BIAS=rotate). Then B runs M more
 * transactions interleaved with A's again (the bias is taken back and regained) and the
 * counter must be exact.
 * Usage: prog_bias N M */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long counter, n, m;
static volatile int phase; /* 0: B's first transaction pending, 1: A runs alone, 2: both */

static void *thread_b(void *arg)
{
    (void)arg;
    __transaction_atomic { counter++; }
    __atomic_store_n(&phase, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&phase, __ATOMIC_ACQUIRE) != 2)
        usleep(1000);
    for (long i = 0; i < m; i++)
        __transaction_atomic { counter++; }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    n = atol(argv[1]);
    m = atol(argv[2]);
    pthread_t b;
    pthread_create(&b, NULL, thread_b, NULL);
    while (__atomic_load_n(&phase, __ATOMIC_ACQUIRE) != 1)
        usleep(100);
    for (long i = 0; i < n; i++)
        __transaction_atomic { counter++; } /* site A */
    __atomic_store_n(&phase, 2, __ATOMIC_RELEASE);
    for (long i = 0; i < m; i++)
        __transaction_atomic { counter++; }
    pthread_join(b, NULL);
    if (counter != 1 + n + 2 * m) {
        fprintf(stderr, "counter %ld, expected %ld\n", counter, 1 + n + 2 * m);
        return 1;
    }
    return 0;
}

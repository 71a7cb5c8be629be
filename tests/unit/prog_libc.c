/* prog_libc.c — libc calls inside relaxed transactions (test_libc_serial.sh), built twice:
 * plain, where GCC cannot see into strlen/snprintf/strtol/strcmp and each transaction goes
 * serial-irrevocable at the first call, and with -DWITH_TMKIT, where <tmkit.h>'s
 * transaction_wrap declarations replace them by the transaction-safe versions and nothing
 * serializes. Both print the same checksum. usage: prog_libc ITERATIONS THREADS
 */
#ifdef WITH_TMKIT
#include <tmkit.h>
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char shared[32] = "12345";
static long total;
static long iters;
static int nthreads;
static int arrived; /* the threads start together */

static long done[16], spare;

/* Each thread runs ITERATIONS transactions into the checksum, then keeps running more (into
 * `spare`) until every thread has done its ITERATIONS: so the threads overlap however late one
 * of them is scheduled, and the single-thread bias cannot run them all uninstrumented. */
static void *worker(void *arg)
{
    long id = (long)arg;
    __atomic_add_fetch(&arrived, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&arrived, __ATOMIC_ACQUIRE) < nthreads)
        ;
    for (long i = 0;; i++) {
        if (i >= iters) {
            int all = 1;
            for (int k = 0; k < nthreads; k++)
                all &= __atomic_load_n(&done[k], __ATOMIC_ACQUIRE) >= iters;
            if (all)
                break;
        }
        long v = id * iters + i % iters;
        long add;
        __transaction_relaxed {
            if (v % 4 != 0) { /* not on every path: GCC instruments the transaction, which
                               * then switches to serial-irrevocable at the call */
                char tmp[32];
                int n = snprintf(tmp, sizeof tmp, "%ld", v); /* LIBC_CALL */
                add = n + (long)strlen(shared) + strtol(tmp, NULL, 10) % 7 +
                      (strcmp(tmp, shared) < 0);
            } else {
                add = 1;
            }
            if (i < iters)
                total += add;
            else
                spare += add;
        }
        if (i < iters)
            __atomic_store_n(&done[id], i + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    iters = argc > 1 ? atol(argv[1]) : 1000;
    nthreads = argc > 2 ? atoi(argv[2]) : 2;
    pthread_t t[16];
    nthreads = nthreads < 1 ? 1 : nthreads > 16 ? 16 : nthreads;
    for (long k = 0; k < nthreads; k++)
        pthread_create(&t[k], NULL, worker, (void *)k);
    for (int k = 0; k < nthreads; k++)
        pthread_join(t[k], NULL);
    printf("%ld\n", total);
    return 0;
}

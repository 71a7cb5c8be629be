/* Reduction of the dedup failure (README.md): a transaction_pure function mallocs scratch
   memory, memsets it through the PLT and frees it, inside a transaction that then rolls back.
   libitm leaves calls made by pure code alone. tmkit's interposed memset (runtime/abi/
   interpose.c) sees an attempt that can roll back and undo-logs the 4096 bytes; the rollback
   then writes the old bytes into the block the pure code already freed.
   gcc-12 -O2 -g -fgnu-tm -pthread pure_memset.c -o pure_memset
   ./pure_memset                                        -> shared=0 q[0]=0 (libitm)
   LD_LIBRARY_PATH=.../build/lib TMKIT_ALGO=orec_eager ./pure_memset -> SIGSEGV (3/3 runs each
   under adaptive, orec_eager, gl_wt and serialirr at 9be694a; norec and orec_lazy exit 0);
   under valgrind: "Invalid write" in tm_undo_rollback into a block freed in scratch().
   The second thread only makes sure the transactions run instrumented. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
static int other;
static void *idle(void *a) { (void)a; __transaction_atomic { other++; } sleep(2); return NULL; }
size_t n = 4096;
static int shared;
char *volatile sink;
volatile char sinkc;
__attribute__((transaction_pure, noipa)) static void scratch(void)
{
    char *p = malloc(n);
    sink = p;
    memset(p, 0xab, n);
    sinkc = p[n - 1];
    free(p);
}
int main(void)
{
    pthread_t th; pthread_create(&th, NULL, idle, NULL); usleep(100000);
    for (int i = 0; i < 3; i++) {
        __transaction_atomic {
            shared++;
            scratch();
            __transaction_cancel;
        }
    }
    char *q = malloc(n);          /* reuses the scratch block */
    memset(q, 0, n);
    __transaction_atomic { shared++; scratch(); __transaction_cancel; }
    pthread_join(th, NULL);
    printf("shared=%d q[0]=%d\n", shared, q[0]);
    return q[0] != 0;
}

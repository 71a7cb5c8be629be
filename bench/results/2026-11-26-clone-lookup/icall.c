#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
typedef void (*fn_t)(long *) __attribute__((transaction_safe));
__attribute__((transaction_safe, noinline)) void bump(long *p) { (*p)++; }
static fn_t volatile f = bump;
static long ops;
struct { long v; char pad[56]; } cnt[8];
static void *run(void *arg) {
    long *c = &cnt[(long)arg].v;
    fn_t g = f;
    for (long i = 0; i < ops; i++)
        __transaction_atomic { g(c); }
    return NULL;
}
int main(int argc, char **argv) {
    int n = atoi(argv[1]); ops = atol(argv[2]);
    pthread_t t[8];
    for (long i = 0; i < n; i++) pthread_create(&t[i], NULL, run, (void *)i);
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
    long s = 0; for (int i = 0; i < n; i++) s += cnt[i].v;
    printf("%ld\n", s);
    return s != n * ops;
}

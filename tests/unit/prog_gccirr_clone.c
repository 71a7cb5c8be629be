/* prog_gccirr_clone.c — a relaxed transaction that GCC compiles to start irrevocable because it
 * calls a transaction_callable function whose every path is unsafe (test_gcc_irrevocable.sh).
 * The shape of memcached's get_stats and append_stat: GCC makes a clone of gccirr_stat, but the
 * clone calls _ITM_changeTransactionMode on entry (vsnprintf on every path), and GCC counts a
 * call of it like the unsafe call itself. The report must name gccirr_stat and the vsnprintf
 * inside it, although the function has a clone.
 *   GCCIRR_CLONE  gccirr_stat (transaction_callable, vsnprintf on every path) on every path
 *   GCCIRR_SOME   gccirr_maybe (transaction_callable, vsnprintf on one path in 8) on every path:
 *                 its clone goes irrevocable at the call only, so GCC instruments the
 *                 transaction, which the report must not name
 * Each thread runs ITERATIONS of both; at exit it prints "clone N" and "some N" on stderr and
 * exits 1 unless both are THREADS x ITERATIONS. usage: prog_gccirr_clone ITERATIONS THREADS */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*gccirr_sink)(const char *key, int klen, const char *val, int vlen, void *arg);

static long n_clone, n_some, total;

static void gccirr_add(const char *key, int klen, const char *val, int vlen, void *arg)
{
    (void)key, (void)val;
    *(long *)arg += klen + vlen;
}

__attribute__((transaction_callable, noinline)) void gccirr_stat(const char *name, gccirr_sink sink,
                                                                 void *arg, const char *fmt, ...);
__attribute__((transaction_callable, noinline)) void gccirr_stat(const char *name, gccirr_sink sink,
                                                                 void *arg, const char *fmt, ...)
{
    char val[32];
    va_list ap;
    va_start(ap, fmt);
    int vlen = vsnprintf(val, sizeof val - 1, fmt, ap); /* GCCIRR_VSNPRINTF */
    va_end(ap);
    sink(name, (int)strlen(name), val, vlen, arg);
}

__attribute__((transaction_callable, noinline)) long gccirr_maybe(long v, char *buf);
__attribute__((transaction_callable, noinline)) long gccirr_maybe(long v, char *buf)
{
    if (v % 8 == 0)
        return snprintf(buf, 32, "%ld", v);
    return v & 1;
}

static __attribute__((noinline)) void run(long v, long *acc)
{
    char buf[32];
    __transaction_relaxed {
        n_clone++;
        gccirr_stat("total", gccirr_add, acc, "%ld", total); /* GCCIRR_CLONE */
        total += v;
    }
    __transaction_relaxed {
        n_some += 1 + gccirr_maybe(v, buf) - gccirr_maybe(v, buf); /* GCCIRR_SOME */
    }
}

static long iters;

static void *worker(void *arg)
{
    long acc = 0, id = (long)arg;
    for (long i = 0; i < iters; i++)
        run(id * iters + i, &acc);
    return NULL;
}

int main(int argc, char **argv)
{
    iters = argc > 1 ? atol(argv[1]) : 1000;
    int nthreads = argc > 2 ? atoi(argv[2]) : 2;
    nthreads = nthreads < 1 ? 1 : nthreads > 16 ? 16 : nthreads;
    pthread_t t[16];
    for (long k = 0; k < nthreads; k++)
        pthread_create(&t[k], NULL, worker, (void *)k);
    for (int k = 0; k < nthreads; k++)
        pthread_join(t[k], NULL);
    fprintf(stderr, "clone %ld\nsome %ld\n", n_clone, n_some);
    return n_clone == iters * nthreads && n_some == n_clone ? 0 : 1;
}

/* prog_gccirr.c — relaxed transactions that GCC compiles to start irrevocable, because an unsafe
 * call lies on every path, beside ones it does not (test_gcc_irrevocable.sh). One site of each:
 *   GCCIRR_PRINTF  printf on every path, after a call of gccirr_lib_safe (transaction_safe, in
 *                  the shared library): the report must pass over that one
 *   GCCIRR_EXT     gccirr_note (prog_gccirr_ext.c: another file, not transaction_safe) on every
 *                  path, after a call of gccirr_step (transaction_safe, in this file)
 *   GCCIRR_HELPER  gccirr_out (this file, not inlined) on every path, which calls write
 *   GCCIRR_SOME    gccirr_note on one path in 8: GCC instruments the transaction, and an attempt
 *                  that takes that path switches to irrevocable at the call
 *   GCCIRR_PURE    no call: speculative under the speculative algorithms
 *   gccirr_lib_tx  (prog_gccirr_lib.c, a shared library) fputs on every path
 * Each thread runs ITERATIONS of each, then keeps going until every thread has done its
 * ITERATIONS, so the threads overlap however late one starts. Each transaction counts itself in
 * its body; at exit the program prints how many of each site committed ("printf N", one line a
 * site) on stderr (stdout has the printf lines) and exits 1 unless the six counts are equal and
 * at least THREADS x ITERATIONS. usage: prog_gccirr ITERATIONS THREADS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void gccirr_note(long v);   /* prog_gccirr_ext.c: GCC cannot see that it is safe */
void gccirr_lib_tx(long v); /* prog_gccirr_lib.c */
long gccirr_lib_count(void);
__attribute__((transaction_safe)) long gccirr_lib_safe(long v);

static long n_printf, n_ext, n_helper, n_some, n_pure, sum, n_errors;
static long iters;
static int nthreads, arrived;
static long done[16];

/* Safe and not inlined: a call before the unsafe one that the report must pass over. GCC makes
 * no clone of it (no instrumented code calls it): the report sees into it, as GCC does. */
static __attribute__((transaction_safe, noinline)) long gccirr_step(long v) { return v & 1; }

/* GCC sees into it: unsafe because of the write (the report names both). To stdout, which the
 * test sends to /dev/null. */
static __attribute__((noinline)) void gccirr_out(long v)
{
    char c = (char)('0' + v % 10);
    if (write(1, &c, 1) != 1) /* GCCIRR_OUT */
        n_errors++;
}

static __attribute__((noinline)) void run(long v) /* its transactions in its own frame */
{
    __transaction_relaxed {
        n_printf += gccirr_lib_safe(1);
        printf("%ld\n", v); /* GCCIRR_PRINTF */
    }
    __transaction_relaxed {
        n_ext += 1 + gccirr_step(v) - (v & 1);
        gccirr_note(v); /* GCCIRR_EXT */
    }
    __transaction_relaxed {
        n_helper++;
        gccirr_out(v); /* GCCIRR_HELPER */
    }
    __transaction_relaxed {
        n_some++;
        if (v % 8 == 0)
            gccirr_note(v); /* GCCIRR_SOME */
    }
    __transaction_atomic {
        n_pure++; /* GCCIRR_PURE */
        sum += v;
    }
    gccirr_lib_tx(v);
}

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
        run(id * iters + i % iters);
        if (i < iters)
            __atomic_store_n(&done[id], i + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    iters = argc > 1 ? atol(argv[1]) : 1000;
    nthreads = argc > 2 ? atoi(argv[2]) : 2;
    nthreads = nthreads < 1 ? 1 : nthreads > 16 ? 16 : nthreads;
    pthread_t t[16];
    for (long k = 0; k < nthreads; k++)
        pthread_create(&t[k], NULL, worker, (void *)k);
    for (int k = 0; k < nthreads; k++)
        pthread_join(t[k], NULL);
    long lib = gccirr_lib_count();
    fprintf(stderr, "printf %ld\next %ld\nhelper %ld\nsome %ld\npure %ld\nlib %ld\n", n_printf,
            n_ext, n_helper, n_some, n_pure, lib);
    int ok = n_printf >= iters * nthreads && n_ext == n_printf && n_helper == n_printf && !n_errors &&
             n_some == n_printf && n_pure == n_printf && lib == n_printf;
    return ok ? 0 : 1;
}

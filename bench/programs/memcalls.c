/* memcalls: what the program's own memcpy/memmove/memset calls cost on the runtime that serves
 * it. Under tmkit, libitm.so.1 takes these calls to see the ones inside transactions
 * (runtime/abi/interpose.c); outside a transaction that should cost one load of the thread's
 * descriptor word and one of its mode. Built with -fgnu-tm like any TM program and linked
 * against the system libitm, so that
 *     build/bin/memcalls                                  (system libitm: glibc's functions)
 *     LD_LIBRARY_PATH=build/lib build/bin/memcalls        (tmkit: the interposed ones)
 * compare the same calls. The thread runs one transaction first, so it has a descriptor, as
 * every thread of a TM program that ever ran a transaction does (the check then reads the
 * descriptor's mode, not just the word).
 *
 * Output: `bench=memcalls memcpy8_ns=.. memcpy64_ns=.. memcpy1024_ns=.. memmove64_ns=..
 * memset64_ns=.. runtime=..` (medians of --repeats timings of --ops calls each). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timing.h"

extern const char *_ITM_libraryVersion(void);

static long counter;
static unsigned char src[4096], dst[4096];

/* Called through volatile pointers: GCC can neither inline nor drop the calls, and the pointer
 * holds what the dynamic linker bound the program's memcpy to. */
static void *(*volatile cp)(void *, const void *, size_t) = memcpy;
static void *(*volatile mv)(void *, const void *, size_t) = memmove;
static void *(*volatile st)(void *, int, size_t) = memset;

enum { COPY, MOVE, SET };

static double time_calls(int what, size_t n, long ops)
{
    void *(*c)(void *, const void *, size_t) = cp, *(*m)(void *, const void *, size_t) = mv;
    void *(*s)(void *, int, size_t) = st;
    double t0 = bench_now();
    for (long i = 0; i < ops; i++) {
        if (what == COPY)
            c(dst, src, n);
        else if (what == MOVE)
            m(dst + 1, dst, n);
        else
            s(dst, (int)i, n);
    }
    return (bench_now() - t0) * 1e9 / (double)ops;
}

static double median_of(int what, size_t n, long ops, int repeats)
{
    double t[64];
    for (int r = 0; r < repeats; r++)
        t[r] = time_calls(what, n, ops);
    qsort(t, (size_t)repeats, sizeof t[0], bench_cmp_double);
    return t[repeats / 2];
}

int main(int argc, char **argv)
{
    long ops = 2000000;
    int repeats = 7;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ops") == 0 && i + 1 < argc)
            ops = atol(argv[++i]);
        else if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc)
            repeats = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: memcalls [--ops N] [--repeats 1-63]\n");
            return 2;
        }
    }
    if (ops < 1 || repeats < 1 || repeats > 63) {
        fprintf(stderr, "memcalls: --ops must be positive, --repeats 1 to 63\n");
        return 2;
    }
    __transaction_atomic { counter++; }
    double c8 = median_of(COPY, 8, ops, repeats), c64 = median_of(COPY, 64, ops, repeats);
    double c1k = median_of(COPY, 1024, ops, repeats), m64 = median_of(MOVE, 64, ops, repeats);
    double s64 = median_of(SET, 64, ops, repeats);
    const char *rt = _ITM_libraryVersion();
    printf("bench=memcalls memcpy8_ns=%.2f memcpy64_ns=%.2f memcpy1024_ns=%.2f memmove64_ns=%.2f "
           "memset64_ns=%.2f runtime=%s\n", c8, c64, c1k, m64, s64,
           rt && strstr(rt, "tmkit") ? "tmkit" : "libitm");
    return 0;
}

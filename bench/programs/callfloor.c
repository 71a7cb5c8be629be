/* callfloor: the floor under every instrumented read and write of the Intel TM ABI on this
 * machine. A -fgnu-tm program calls _ITM_RU8/_ITM_WU8 through the PLT for each access; this
 * program times the same loops as micro's reads and writes (n words per operation) with each
 * access a PLT call of a function that only does the access (callfloor_lib.c). The per-access
 * figure is the slope between 16 and 64 words, as `tmkit bench` computes it for the barriers,
 * so a barrier can be no cheaper than what this prints.
 *
 * Output: one line, `bench=callfloor load_ns=X store_ns=Y` (medians of --repeats timings). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timing.h"

long callfloor_load(const long *p);
void callfloor_store(long *p, long v);

/* ns per operation of `ops` operations touching n words each; the sum keeps the loads live. */
static double time_loads(const long *w, long n, long ops, long *sink)
{
    double t0 = bench_now();
    long sum = 0;
    for (long o = 0; o < ops; o++)
        for (long i = 0; i < n; i++)
            sum += callfloor_load(&w[i]);
    double t = bench_now() - t0;
    *sink += sum;
    return t * 1e9 / (double)ops;
}

static double time_stores(long *w, long n, long ops)
{
    double t0 = bench_now();
    for (long o = 0; o < ops; o++)
        for (long i = 0; i < n; i++)
            callfloor_store(&w[i], o);
    return (bench_now() - t0) * 1e9 / (double)ops;
}

int main(int argc, char **argv)
{
    long repeats = 5, ops = 200000;
    for (int i = 1; i < argc; i++) {
        char *end;
        if (i + 1 < argc && !strcmp(argv[i], "--repeats")) {
            repeats = strtol(argv[++i], &end, 10);
            if (*end || repeats < 1 || repeats > 1000)
                goto usage;
        } else if (i + 1 < argc && !strcmp(argv[i], "--ops")) {
            ops = strtol(argv[++i], &end, 10);
            if (*end || ops < 1 || ops > 100000000)
                goto usage;
        } else {
            goto usage;
        }
    }
    long *w = calloc(64, sizeof *w), sink = 0;
    double *ld = calloc((size_t)repeats, sizeof *ld), *st = calloc((size_t)repeats, sizeof *st);
    if (!w || !ld || !st) {
        fprintf(stderr, "callfloor: out of memory\n");
        return 1;
    }
    for (long r = 0; r < repeats; r++) {
        ld[r] = (time_loads(w, 64, ops, &sink) - time_loads(w, 16, ops, &sink)) / 48;
        st[r] = (time_stores(w, 64, ops) - time_stores(w, 16, ops)) / 48;
    }
    qsort(ld, (size_t)repeats, sizeof *ld, bench_cmp_double);
    qsort(st, (size_t)repeats, sizeof *st, bench_cmp_double);
    printf("bench=callfloor repeats=%ld ops=%ld load_ns=%.3f store_ns=%.3f sink=%ld\n", repeats,
           ops, ld[repeats / 2], st[repeats / 2], sink);
    return 0;
usage:
    fprintf(stderr, "usage: callfloor [--repeats N (1-1000, default 5)] [--ops N (default 200000)]\n");
    return 2;
}

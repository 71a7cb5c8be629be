/* Timing helpers shared by the benchmark programs: the monotonic clock in seconds, and the
 * comparison that sorts repeats for their median. Header-only, no dependency but libc. */
#ifndef TMKIT_BENCH_TIMING_H
#define TMKIT_BENCH_TIMING_H

#include <time.h>

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* qsort comparison of doubles, ascending */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif

/* need() for stack_barrier.c (our own code) */
#include "stack_barrier.h"

static inline __attribute__((transaction_safe)) void fill(answer *a, bool big, long twice)
{
    a->big = big;
    a->twice = twice;
}

__attribute__((transaction_safe)) answer need(long x)
{
    answer a;
    if (x > 10)
        fill(&a, true, 2 * x);
    else
        fill(&a, false, 0);
    return a;
}


/* The one list of algorithms. Order matters: the first is the default. */
#include "algo.h"

const tm_algo *const tm_algos[] = {
    &tm_algo_adaptive,
    &tm_algo_norec,
    &tm_algo_orec_lazy,
    &tm_algo_orec_eager,
    &tm_algo_gl_wt,
    &tm_algo_serialirr,
    &tm_algo_htm,
    NULL,
};

/* The algorithm table: every selectable algorithm, default first (TMKIT_ALGO picks by name).
 * The types, tm_algo and tm_dispatch, are core's (core/dispatch.h): core runs an algorithm
 * through them without naming any. */
#ifndef TMKIT_ALGO_H
#define TMKIT_ALGO_H

#include <stdbool.h>
#include "../core/tx.h"

extern const tm_algo tm_algo_norec TM_HIDDEN;
extern const tm_algo tm_algo_gl_wt TM_HIDDEN;
extern const tm_algo tm_algo_orec_lazy TM_HIDDEN;
extern const tm_algo tm_algo_orec_eager TM_HIDDEN;
extern const tm_algo tm_algo_serialirr TM_HIDDEN;
extern const tm_algo tm_algo_htm TM_HIDDEN;
extern const tm_algo tm_algo_adaptive TM_HIDDEN;

/* NULL-terminated; the first entry is the default. */
extern const tm_algo *const tm_algos[] TM_HIDDEN;

#endif

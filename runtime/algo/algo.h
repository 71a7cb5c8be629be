/* The algorithm table: every selectable algorithm, default first (TMKIT_ALGO picks by name). */
#ifndef TMKIT_ALGO_H
#define TMKIT_ALGO_H

#include <stdbool.h>
#include "../core/tx.h"

typedef struct tm_algo tm_algo;

struct tm_algo {
    const char *name;
    const char *summary;
    const tm_dispatch *disp; /* speculative dispatch (NULL for serial algorithms) */
    bool serial;             /* every transaction runs under the serial lock */
    bool biased;             /* may use the single-thread bias (core/bias.c) */
    bool managed;            /* serial stretches under contention (core/cm.c) */
};

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

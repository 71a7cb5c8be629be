/* The serial algorithms, `serialirr` and `htm`. Their transactions run in core's two exclusive
 * modes (core/serial_modes.c: direct, serial_undo), which every algorithm uses for the
 * transactions it runs alone.
 * The `serialirr` algorithm runs every transaction under the serial lock, on GCC's
 * uninstrumented code path whenever the transaction cannot cancel: one lock, as cheap as the
 * mutex it replaces, no concurrency.
 */
#include "algo.h"

const tm_algo tm_algo_serialirr = {
    .name = "serialirr",
    .summary = "every transaction alone under one lock, uninstrumented when it cannot cancel",
    .disp = NULL,
    .serial = true,
    .biased = true,
};

/* serialirr with the lock elided by hardware transactions where the CPU has Intel RTM
 * (core/htm.c): adaptive's htm mode alone, so that every test can run on that path. */
const tm_algo tm_algo_htm = {
    .name = "htm",
    .summary = "serialirr with the lock elided by hardware transactions (Intel RTM; serialirr "
               "without it)",
    .disp = NULL,
    .serial = true,
    .biased = true,
    .htm = true,
};

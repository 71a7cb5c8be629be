/* adaptive (the default): picks the execution mode at run time from what it observes.
 *
 *  - One transacting thread: the single-thread bias (core/bias.c). Transactions run GCC's
 *    uninstrumented code path (or undo-logged instrumented code when they may cancel) with no
 *    atomic instruction at all: cheaper than the mutex they replace.
 *  - Several: the cheapest, measured over epochs of ~1.5 ms (core/cm.c), of gl_wt (global
 *    versioned lock, write-through; no redo log, good for short transactions), serial (GCC's
 *    uninstrumented code under the serial lock: the lock they replaced, when transactions
 *    mostly conflict) and, with 4+ transacting threads, orec_eager (per-location locks,
 *    write-through: disjoint writers do not serialize). All of them write in place, as GCC's
 *    libitm does, which programs and GCC itself rely on (cm.c). TMKIT_ADAPTIVE_MODES=all adds
 *    the redo-log algorithms NOrec (Dalessandro, Spear, Scott, PPoPP 2010) and orec_lazy.
 *    Per transaction: back-off and serial fallback after repeated aborts (core/txn.c).
 * Switching is safe at any moment: the bias and the serial lock exclude each other (bias.c),
 * and each transaction keeps the mode it started with until it commits or restarts.
 */
#include "algo.h"

extern const tm_dispatch tm_disp_gl_wt TM_HIDDEN;

const tm_algo tm_algo_adaptive = {
    .name = "adaptive",
    .summary = "uninstrumented under a free single-thread bias; gl_wt, serial or orec_eager "
               "(write-through), measured",
    .disp = &tm_disp_gl_wt,
    .biased = true,
    .managed = true,
};

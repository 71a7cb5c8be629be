/* adaptive (the default): picks the execution mode at run time from what it observes.
 *
 *  - One transacting thread: the single-thread bias (core/bias.c). Transactions run GCC's
 *    uninstrumented code path (or undo-logged instrumented code when they may cancel) with no
 *    atomic instruction at all: cheaper than the mutex they replace.
 *  - Several: NOrec (Dalessandro, Spear, Scott, PPoPP 2010) for its tiny per-access cost and
 *    privatization safety at 2-16 threads. When a thread's transactions mostly conflict, it
 *    runs stretches of them serially (core/cm.c), at the cost of the lock they replaced; per
 *    transaction, back-off and serial fallback after repeated aborts (core/txn.c).
 * Switching is safe at any moment: the bias and the serial lock exclude each other (bias.c),
 * and each transaction keeps the mode it started with until it commits or restarts.
 */
#include "algo.h"

extern const tm_dispatch tm_disp_norec TM_HIDDEN;

const tm_algo tm_algo_adaptive = {
    .name = "adaptive",
    .summary = "uninstrumented under a free single-thread bias; NOrec when threads share data",
    .disp = &tm_disp_norec,
    .biased = true,
    .managed = true,
};

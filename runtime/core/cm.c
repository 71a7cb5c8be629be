/* Contention management for the adaptive algorithm.
 *
 * Per thread, over windows of TM_CM_WINDOW finished attempts, the ratio of aborted attempts is
 * measured. When more than a quarter of the attempts abort, speculation costs more than it wins
 * (on this machine a conflicting hand-off costs ~200 ns; the serial lock costs about a mutex), so
 * the thread runs its next `serial_len` transactions serially, then probes speculation again.
 * Each probe that still finds contention doubles serial_len (up to TM_CM_SERIAL_MAX); a calm
 * window halves it. Individual transactions also fall back to serial after TMKIT_MAX_RETRIES
 * failed attempts (txn.c), so nothing livelocks whatever this policy decides.
 * All state is in the thread's own descriptor: no shared cache line is written.
 */
#include "tx.h"

#define TM_CM_WINDOW 64u
#define TM_CM_SERIAL_MIN 64u
#define TM_CM_SERIAL_MAX 8192u

static void tm_cm_window_end(tm_tx *tx)
{
    bool contended = tx->cm.aborts * 4 > TM_CM_WINDOW;
    if (contended) {
        tx->cm.serial_left = tx->cm.serial_len;
        tx->cm.serial_len = tx->cm.serial_len * 2 > TM_CM_SERIAL_MAX ? TM_CM_SERIAL_MAX
                                                                     : tx->cm.serial_len * 2;
    } else if (tx->cm.serial_len > TM_CM_SERIAL_MIN) {
        tx->cm.serial_len /= 2;
    }
    tx->cm.attempts = 0;
    tx->cm.aborts = 0;
}

void tm_cm_attempt_done(tm_tx *tx, bool aborted)
{
    if (tx->cm.serial_len == 0)
        tx->cm.serial_len = TM_CM_SERIAL_MIN;
    tx->cm.aborts += aborted;
    if (++tx->cm.attempts == TM_CM_WINDOW)
        tm_cm_window_end(tx);
}

bool tm_cm_run_serial(tm_tx *tx)
{
    if (tx->cm.serial_left == 0)
        return false;
    tx->cm.serial_left--;
    return true;
}

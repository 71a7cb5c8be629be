/* Contention management of the adaptive algorithm: choose, for the whole process, between
 * running transactions speculatively (the algorithm's dispatch) and serially (GCC's
 * uninstrumented code under the serial lock, like the mutex the program had), by measuring which
 * is cheaper.
 *
 * The choice must be process-wide: a thread probing speculation while another runs serially only
 * waits for the serial lock, so per-thread choices never discover that speculation pays.
 *  - Every thread measures windows of TM_CM_WINDOW committed transactions with the TSC; the cost
 *    of a window is cycles per committed transaction, aborted attempts included, so conflicts,
 *    validation and cache-line hand-offs all count. A window that ran entirely under one mode
 *    (same mode generation at both ends) is folded into that mode's global estimate.
 *  - Time is cut into epochs (TM_CM_EPOCH cycles). When an epoch ends, the first thread to notice
 *    decides: after a probe epoch, the cheaper mode wins; the incumbent keeps winning for `run`
 *    epochs, doubling after every lost probe (up to TM_CM_RUN_MAX), then the other mode is
 *    probed for one epoch. Estimates age by 25% at each probe, so a changing workload is seen.
 * Shared writes: one per window per thread (estimates) and a few per epoch (the decision).
 * Individual transactions still fall back to serial after TMKIT_MAX_RETRIES failed attempts
 * (txn.c), so nothing livelocks whatever this policy decides.
 */
#include "tx.h"

#define TM_CM_WINDOW 128u
#define TM_CM_EPOCH 4000000ull /* TSC cycles: ~1.5 ms */
#define TM_CM_RUN_MAX 64u

enum { TM_CM_SPEC = 0, TM_CM_SERIAL = 1 };

/* The decision state. `gen` changes with every mode switch; the rest is guarded by `busy`. */
static struct {
    _Atomic uint32_t mode; /* read at every attempt: read-mostly line */
    _Atomic uint32_t gen;
    _Alignas(64) _Atomic uint32_t busy;
    _Atomic uint64_t est[2]; /* cycles per committed transaction, per mode (0 = unknown) */
    uint64_t epoch_end;
    uint32_t run, left;
    bool probing;
} tm_cm;

static inline uint64_t tm_cm_now(void) { return __builtin_ia32_rdtsc(); }

static void tm_cm_switch(uint32_t mode)
{
    /* relaxed: the mode is a hint; any mode is correct at any time. */
    atomic_store_explicit(&tm_cm.mode, mode, memory_order_relaxed);
    atomic_fetch_add_explicit(&tm_cm.gen, 1, memory_order_relaxed);
}

/* Called by one thread at a time (busy flag). */
static void tm_cm_decide(uint64_t now)
{
    uint32_t mode = atomic_load_explicit(&tm_cm.mode, memory_order_relaxed), other = !mode;
    uint64_t em = atomic_load_explicit(&tm_cm.est[mode], memory_order_relaxed);
    uint64_t eo = atomic_load_explicit(&tm_cm.est[other], memory_order_relaxed);
    if (em == 0)
        return; /* no measurement of this epoch yet: extend it */
    if (tm_cm.probing) {
        tm_cm.probing = false;
        if (em < eo) {
            tm_cm.run = 1; /* the probed mode won */
        } else {
            tm_cm_switch(other);
            tm_cm.run = tm_cm.run * 2 > TM_CM_RUN_MAX ? TM_CM_RUN_MAX : tm_cm.run * 2;
        }
        tm_cm.left = tm_cm.run;
    } else if (eo == 0 || --tm_cm.left == 0) {
        atomic_store_explicit(&tm_cm.est[other], eo + eo / 4, memory_order_relaxed);
        tm_cm_switch(other);
        tm_cm.probing = true;
    }
    tm_cm.epoch_end = now + TM_CM_EPOCH;
}

static void tm_cm_window_end(tm_tx *tx)
{
    uint64_t now = tm_cm_now();
    uint32_t gen = atomic_load_explicit(&tm_cm.gen, memory_order_relaxed);
    if (gen == tx->cm.gen) {
        uint32_t mode = atomic_load_explicit(&tm_cm.mode, memory_order_relaxed);
        uint64_t cost = (now - tx->cm.window_start) / TM_CM_WINDOW;
        uint64_t old = atomic_load_explicit(&tm_cm.est[mode], memory_order_relaxed);
        atomic_store_explicit(&tm_cm.est[mode], old ? (old + cost) / 2 : cost,
                              memory_order_relaxed);
    }
    if (now >= tm_cm.epoch_end &&
        !atomic_exchange_explicit(&tm_cm.busy, 1, memory_order_acquire)) {
        /* acquire/release on busy: one decider at a time sees the previous decider's state. */
        if (now >= tm_cm.epoch_end)
            tm_cm_decide(now);
        atomic_store_explicit(&tm_cm.busy, 0, memory_order_release);
    }
    tx->cm.count = 0;
    tx->cm.gen = atomic_load_explicit(&tm_cm.gen, memory_order_relaxed);
    tx->cm.window_start = tm_cm_now();
}

void tm_cm_committed(tm_tx *tx)
{
    if (TM_UNLIKELY(tx->cm.window_start == 0)) { /* first use by this descriptor */
        tx->cm.gen = atomic_load_explicit(&tm_cm.gen, memory_order_relaxed);
        tx->cm.window_start = tm_cm_now();
        tx->cm.count = 0;
        return;
    }
    if (++tx->cm.count == TM_CM_WINDOW)
        tm_cm_window_end(tx);
}

bool tm_cm_run_serial(tm_tx *tx)
{
    (void)tx;
    return atomic_load_explicit(&tm_cm.mode, memory_order_relaxed) == TM_CM_SERIAL;
}

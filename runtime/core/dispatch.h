/* The dispatch table: the functions of one execution mode, through which core runs the current
 * algorithm (tm_tx.disp; the barriers' fast paths switch on its `mode` instead). The algorithms
 * (runtime/algo/) fill in tables of this type; core calls an algorithm only through them and
 * through tm_config.algo (config.h), never by name. Included by tx.h.
 */
#ifndef TMKIT_DISPATCH_H
#define TMKIT_DISPATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"

typedef struct tm_tx tm_tx;

/* Execution modes with inline barrier fast paths (abi/barrier_defs.h); others use the table. */
enum tm_mode {
    TM_MODE_DIRECT,      /* serial-irrevocable: plain accesses */
    TM_MODE_SERIAL_UNDO, /* exclusive, undo-logged writes */
    TM_MODE_NOREC,
    TM_MODE_GLWT,
    TM_MODE_OREC_LAZY,
    TM_MODE_OREC_EAGER,
    TM_MODE_OREC_RO,     /* orec_eager's unlogged read-only attempts (algo/orec_eager_ro.c) */
    TM_MODE_OTHER,       /* table only */
};

typedef struct tm_dispatch {
    const char *name;
    uint8_t mode; /* enum tm_mode */
    void (*read)(tm_tx *tx, void *dst, const void *src, size_t len);
    void (*write)(tm_tx *tx, void *dst, const void *src, size_t len);
    /* Speculative algorithms only (NULL for the serial modes). */
    void (*begin)(tm_tx *tx);
    /* Outermost commit. Returns false on conflict (the caller restarts), otherwise sets
     * *commit_ts to the time other transactions must pass for privatization safety (0: none). */
    bool (*commit)(tm_tx *tx, tm_skip skip, uint64_t *commit_ts);
    /* After the core restored memory from the undo log: release what the attempt holds. */
    void (*rollback)(tm_tx *tx);
    /* Called with every other transaction drained: make the attempt's effects current in memory
     * so it can continue irrevocably. Returns false if the attempt was already inconsistent. */
    bool (*upgrade)(tm_tx *tx, tm_skip skip);
    /* NULL, or: can this attempt no longer commit? Async-signal-safe, reads no program memory;
     * false while the attempt writes memory. With it, a fault in the attempt is a doomed read
     * of privatized memory and restarts it, so commits need no quiescence (faultguard.c). */
    bool (*doomed)(const tm_tx *tx);
    /* Quiescence waits for the attempts running at the commit to end (tm_quiesce_ended)
     * instead of for snapshots past the commit time, which orec_eager's clock, moved only when
     * needed, may not reach. */
    bool quiesce_ended;
    /* NULL, or: the commit's privatization wait is over (or was skipped): release what the
     * commit still holds. The orec algorithms keep their orecs locked until then, so that no
     * transaction reads what the commit wrote while an attempt it doomed may still be running:
     * a read-only transaction does not wait at its commit, and would otherwise hand data to
     * plain code while a doomed writer still had an uncommitted write in it, or was still
     * writing back (proxy privatization, tests/conformance/mt_proxy_privatize.c). */
    void (*published)(tm_tx *tx);
    /* NULL, or: after the rollback of a transaction GCC flags read-only (its first restarts:
     * txn.c), wait (briefly) for the conflict to end instead of the core's random back-off.
     * Returns false to have the back-off as well. (Writers keep the back-off: two writers that
     * restart as soon as the other commits alternate, and every commit moves the lines they
     * share; on a shared counter at 2 threads gl_wt ran at 0.41x with the wait for writers
     * too.) */
    bool (*settle)(tm_tx *tx);
    /* NULL, or: adaptive's decider is about to switch to this algorithm (core/cm.c), while the
     * other threads still run in the old one: set up what its first attempts would otherwise
     * pay for (the orec algorithms map their table: algo/orec_locks.c, tm_orecs_populate). */
    void (*prepare)(void);
} tm_dispatch;

/* An algorithm as TMKIT_ALGO names it (algo/registry.c lists them; core reads the chosen one
 * through tm_config.algo): how its transactions run, which core's begin and commit follow. */
typedef struct tm_algo {
    const char *name;
    const char *summary;
    const tm_dispatch *disp; /* speculative dispatch (NULL for serial algorithms) */
    bool serial;             /* every transaction runs under the serial lock */
    bool biased;             /* may use the single-thread bias (bias.c) */
    bool managed;            /* serial stretches under contention (cm.c) */
    bool htm;                /* serial transactions run as hardware ones where RTM works (htm.c) */
} tm_algo;

/* The two modes of a transaction that runs alone (the bias or the serial lock; serial_modes.c),
 * whatever the algorithm: core's begin, commit and switch to irrevocable choose them. */
extern const tm_dispatch tm_disp_direct __attribute__((visibility("hidden")));
extern const tm_dispatch tm_disp_serial_undo __attribute__((visibility("hidden")));

#endif

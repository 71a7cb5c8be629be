/* The ownership-record table and global clock shared by orec_lazy and orec_eager.
 * An unlocked orec holds (version << 1): the commit time of the last writer of its words. A
 * locked one has bit 0 set; the rest identifies the owner (each algorithm documents how). */
#ifndef TMKIT_ALGO_OREC_H
#define TMKIT_ALGO_OREC_H

#include "../core/tx.h"

#define TM_OREC_BITS 18

extern _Atomic uint64_t tm_orecs[1u << TM_OREC_BITS] TM_HIDDEN;
extern _Atomic uint64_t tm_orec_clock TM_HIDDEN;

static inline _Atomic uint64_t *tm_orec_of(uintptr_t addr)
{
    return &tm_orecs[(addr >> 3) & ((1u << TM_OREC_BITS) - 1)];
}

static inline bool tm_orec_locked(uint64_t v) { return v & 1; }
static inline uint64_t tm_orec_version(uint64_t v) { return v >> 1; }

/* Starts an attempt at the current clock and publishes the snapshot for quiescence. */
static inline void tm_orec_begin(tm_tx *tx)
{
    /* acquire: versions <= this time were published by commits we now see. */
    tx->snapshot = atomic_load_explicit(&tm_orec_clock, memory_order_acquire);
    /* release: pairs with the acquire loads in tm_quiesce. */
    atomic_store_explicit(&tx->shared_ts, tx->snapshot, memory_order_release);
}

#endif

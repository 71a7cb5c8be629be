/* The orec algorithms' lock records (orec.h: tm_locks): growth and release.
 *
 * orec_lazy's commits and tmkit.h's atomics (ext/atomic_orec.c) lock an orec with a value that
 * names one of the thread's records; a reader in another thread that loaded such a value
 * follows it to the record's owner (orec_lazy's validation and reads, orec.h) and may do so
 * after the lock was released, in the same attempt. So once a block's records have been named,
 * it is not freed while any attempt that may have loaded such a value runs: a growth keeps the
 * old block on the new one's `retired` chain, and the descriptor's release frees the chain
 * after a grace period (core/serial.c: tm_grace_wait). The retired blocks at most double the
 * memory of the current one (each growth at least doubles); orec_eager's locks name the
 * descriptor, not a record, so a thread that never named a record reallocates in place.
 * Also the table's mapping in one call (tm_orecs_populate).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "orec.h"
#include "../core/sys.h"

/* The slow part of tm_locks_reserve: a first block, or a bigger one (the old one retired if
 * an orec may still name its records: see the top). */
tm_locks *tm_locks_grow(tm_tx *tx, size_t want)
{
    tm_locks *l = tx->algo_state;
    size_t cap = l ? l->cap : 32;
    while (cap < want)
        cap *= 2;
    size_t size = sizeof *l + cap * sizeof l->rec[0];
    /* A growth happens before the lock it makes room for is taken (orec_eager's write,
     * orec_lazy's commit) and leaves the records as they were when it fails: it is a log's
     * (tm_log_grow). The first block is made when the thread takes its descriptor
     * (tm_locks_init), outside any transaction: adaptive may first run an orec mode in the
     * middle of a thread's life, and a begin has no state a failed allocation could fall back
     * on. */
    if (!l) {
        l = tm_xrealloc(NULL, size, "orec lock records");
        *l = (tm_locks){0};
    } else if (!l->named) {
        l = tm_log_grow(l, size, "orec lock records");
    } else {
        tm_locks *old = l;
        l = tm_log_grow(NULL, size, "orec lock records");
        memcpy(l, old, sizeof *l + old->n * sizeof l->rec[0]);
        l->retired = old;
    }
    l->cap = cap;
    tx->algo_state = l;
    return l;
}

void tm_locks_init(tm_tx *tx)
{
    if (!tx->algo_state)
        tm_locks_grow(tx, 1);
}

/* Frees the thread's lock records (the descriptor goes back to the pool, holding no lock): after
 * a grace period if orecs have named them. */
void tm_locks_free(tm_tx *tx)
{
    tm_locks *l = tx->algo_state;
    tx->algo_state = NULL;
    if (l && l->named)
        tm_grace_wait(tx);
    while (l) {
        tm_locks *next = l->retired;
        free(l);
        l = next;
    }
}

/* The orec table is 4 MiB of zero pages until first written: a program that starts using it
 * takes ~1,000 page faults in its transactions. adaptive's first probe of an orec mode took them
 * all inside its measured epochs (2026-11-27, the 256K hash set at 2 threads: 38,000-67,000
 * cycles a commit in the first probe against ~500 once mapped, and up to 6 ms of a 0.3 s run),
 * so its decider maps the table first, in one system call, while the others go on in the
 * incumbent mode. Once per process; a kernel without MADV_POPULATE_WRITE (before 5.14) is left
 * to the faults as before. */
void tm_orecs_populate(void)
{
    static _Atomic bool done;
    /* relaxed: the flag only spares a repeat; the mapping needs no ordering. */
    if (atomic_exchange_explicit(&done, true, memory_order_relaxed))
        return;
    const uintptr_t page = 4096; /* x86-64's base page; the range is rounded inwards */
    uintptr_t a = ((uintptr_t)tm_orecs + page - 1) & ~(page - 1);
    uintptr_t e = (uintptr_t)(tm_orecs + sizeof tm_orecs / sizeof tm_orecs[0]) & ~(page - 1);
#ifdef MADV_POPULATE_WRITE
    tm_sys3(SYS_madvise, (long)a, (long)(e - a), MADV_POPULATE_WRITE); /* errno kept (sys.h) */
#else
    (void)a;
    (void)e;
#endif
}

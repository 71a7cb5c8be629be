/* Inline barrier fast paths: naturally aligned accesses of 1, 2, 4 or 8 bytes in the modes that
 * dominate run time. Each returns false when it cannot finish (unaligned, write-set hit, clock
 * moved, log full); the caller then takes the algorithm's general path through the dispatch
 * table, which handles everything (and may restart the transaction). */
#ifndef TMKIT_ALGO_FAST_H
#define TMKIT_ALGO_FAST_H

#include <string.h>

#include "../core/tx.h"

extern tm_line64 tm_norec_seq_line TM_HIDDEN; /* each alone on its cache line */
extern tm_line64 tm_gl_clock_line TM_HIDDEN;
#define tm_norec_seq (tm_norec_seq_line.w)
#define tm_gl_clock (tm_gl_clock_line.w)

static inline __attribute__((always_inline)) uint64_t tm_load_n(const void *a, unsigned size)
{
    /* relaxed atomic loads: the location may be written concurrently; the algorithm's clock
     * check that follows orders and validates them. */
    switch (size) {
    case 1: return __atomic_load_n((const uint8_t *)a, __ATOMIC_RELAXED);
    case 2: return __atomic_load_n((const uint16_t *)a, __ATOMIC_RELAXED);
    case 4: return __atomic_load_n((const uint32_t *)a, __ATOMIC_RELAXED);
    default: return __atomic_load_n((const uint64_t *)a, __ATOMIC_RELAXED);
    }
}

static inline __attribute__((always_inline)) void tm_store_n(void *a, uint64_t v, unsigned size)
{
    switch (size) {
    case 1: __atomic_store_n((uint8_t *)a, (uint8_t)v, __ATOMIC_RELAXED); break;
    case 2: __atomic_store_n((uint16_t *)a, (uint16_t)v, __ATOMIC_RELAXED); break;
    case 4: __atomic_store_n((uint32_t *)a, (uint32_t)v, __ATOMIC_RELAXED); break;
    default: __atomic_store_n((uint64_t *)a, v, __ATOMIC_RELAXED); break;
    }
}

static inline __attribute__((always_inline)) bool tm_norec_read_fast(tm_tx *tx, const void *addr,
                                                                     unsigned size, uint64_t *out)
{
    if (tx->wset.n && tm_wset_maybe(&tx->wset, addr, size))
        return false;
    tm_rset *r = &tx->rset;
    if (TM_UNLIKELY(r->n == r->cap))
        return false;
    uint64_t v = tm_load_n(addr, size);
    /* acquire fence: the load above happens before the clock check (seqlock reader); pairs
     * with the release fence after a committer's CAS in norec_commit. */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (TM_UNLIKELY(atomic_load_explicit(&tm_norec_seq, memory_order_relaxed) != tx->snapshot))
        return false;
    tm_rentry *e = &r->e[r->n++];
    e->addr = (uintptr_t)addr;
    e->val = v;
    e->len = size;
    *out = v;
    return true;
}

static inline __attribute__((always_inline)) bool tm_gl_read_fast(tm_tx *tx, const void *addr,
                                                                  unsigned size, uint64_t *out)
{
    /* Any alignment: the clock check below validates the value, so it need not be one load. */
    uint64_t v = 0;
    memcpy(&v, addr, size);
    /* acquire fence: as in tm_norec_read_fast; pairs with gl_write's release fence. An owner's
     * snapshot is the locked clock value it installed, so this one check also covers it. */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (TM_UNLIKELY(atomic_load_explicit(&tm_gl_clock, memory_order_relaxed) != tx->snapshot))
        return false;
    *out = v;
    return true;
}

/* Buffered write of one naturally aligned value of `size` bytes (NOrec, orec_lazy): a word the
 * filter has never seen is appended with a few stores; anything else merges in tm_wset_put. */
static inline __attribute__((always_inline)) void tm_wset_write_fast(tm_wset *w, void *addr,
                                                                     uint64_t raw, unsigned size)
{
    uintptr_t off = (uintptr_t)addr & 7, word = (uintptr_t)addr - off;
    uint64_t mask = size == 8 ? ~0ull : (((1ull << (size * 8)) - 1) << (off * 8));
    if (!(tm_wset_surely_new(w, word) && tm_wset_add_fast(w, word, raw << (off * 8), mask)))
        tm_wset_put(w, word, raw << (off * 8), mask);
}

/* Undo record for one naturally aligned word of `size` bytes (same layout as tm_undo_push). */
static inline __attribute__((always_inline)) bool tm_undo_push_fast(tm_undo *u, void *addr,
                                                                    unsigned size)
{
    size_t need = u->len + 8 + 2 * sizeof(uintptr_t);
    if (TM_UNLIKELY(need > u->cap))
        return false;
    uint64_t *p = (uint64_t *)(u->buf + u->len);
    p[0] = tm_load_n(addr, size);
    p[1] = (uintptr_t)addr;
    p[2] = size;
    u->len = need;
    u->count++;
    return true;
}

#endif

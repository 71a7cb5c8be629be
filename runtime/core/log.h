/* Transaction logs.
 *
 *  tm_undo   byte-arena undo log (address, length, old bytes). Used for write-through algorithms'
 *            memory, for serial mode's cancel support and for _ITM_L* logged locals. Entries are
 *            [old bytes rounded up to 8][footer {addr,len}] so rollback walks backwards.
 *  tm_rset   NOrec-style value read log: (addr, len <= 8, value) checked by value on validation.
 *  tm_olog   read log of orec_eager: the ownership records read, one pointer each, validated by
 *            their versions (algo/orec_eager.c); a cursor and an end, so a push is one compare
 *            and two stores. Beside it the count of reads an unlogged read-only attempt
 *            accepted (algo/orec_eager_ro.c), which keeps no orecs.
 *  tm_wset   redo log keyed by aligned 8-byte word with a per-byte mask, so writes of any size and
 *            alignment merge exactly and write-back touches only the bytes the program wrote.
 *            Lookup: a 64-bit filter, then an open-addressing index whose slots hold
 *            (generation << 32 | entry index + 1); a slot of another generation is empty, so a
 *            reset only bumps the generation instead of clearing the table. The index is built
 *            lazily: appending costs a few stores, and the entries appended since the last
 *            lookup are indexed when the filter first says a word may be present.
 *            Closed nesting: overwriting an entry older than wset_nest_mark first saves its old
 *            value in the wset undo list, so a nested cancel can restore the parent's values.
 */
#ifndef TMKIT_LOG_H
#define TMKIT_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tm_undo {
    unsigned char *buf;
    size_t len, cap;
    size_t count; /* records pushed since the last reset (statistics) */
} tm_undo;

typedef struct tm_rentry {
    uintptr_t addr;
    uint64_t val;
    uint32_t len;
} tm_rentry;

typedef struct tm_rset {
    tm_rentry *e;
    size_t n, cap;
} tm_rset;

typedef struct tm_olog {
    uintptr_t *cur, *end, *base;
    size_t unlogged; /* reads accepted without an entry (orec_eager_ro.c) */
} tm_olog;

typedef struct tm_wentry {
    uintptr_t word; /* address of the aligned 8-byte word */
    uint64_t val;   /* new bytes (only those under mask are meaningful) */
    uint64_t mask;  /* 0xff for each byte written */
} tm_wentry;

typedef struct tm_wundo {
    size_t idx;
    uint64_t val, mask;
} tm_wundo;

typedef struct tm_wset {
    tm_wentry *e;
    size_t n, cap;
    uint64_t *index;  /* open addressing: gen << 32 | (entry index + 1) */
    size_t index_mask; /* index size - 1 (power of two) */
    uint64_t gen;      /* current generation, << 32; never 0 */
    size_t indexed;    /* entries [0, indexed) are in the index */
    uint64_t filter;  /* bit (word >> 3) & 63 set for every entry */
    size_t nest_mark; /* entries below this need undo records when overwritten */
    tm_wundo *undo;
    size_t undo_n, undo_cap;
} tm_wset;

/* A region of stack that must not be written by rollback or write-back: dead frames below the
 * transaction's checkpoint that the runtime itself is now using. */
typedef struct tm_skip {
    uintptr_t lo, hi;
} tm_skip;

static inline bool tm_skip_hits(tm_skip s, uintptr_t addr, size_t len)
{
    return addr < s.hi && addr + len > s.lo;
}

void tm_undo_push(tm_undo *u, const void *addr, size_t len);
void tm_undo_rollback(tm_undo *u, size_t mark, tm_skip skip);
void tm_undo_reset(tm_undo *u);

void tm_rset_push(tm_rset *r, const void *addr, const void *val, size_t len);
bool tm_rset_valid(const tm_rset *r);

/* Appends one entry, growing the log (the inline fast paths push while cur != end). */
void tm_olog_push(tm_olog *l, uintptr_t orec);
/* Reads the attempt made: logged, or counted only. */
static inline size_t tm_olog_n(const tm_olog *l) { return (size_t)(l->cur - l->base) + l->unlogged; }
static inline void tm_olog_reset(tm_olog *l)
{
    l->cur = l->base;
    l->unlogged = 0;
}
void tm_olog_free(tm_olog *l);

void tm_wset_write(tm_wset *w, void *addr, const void *src, size_t len);
void tm_wset_reindex(tm_wset *w, size_t want);
void tm_wset_new_gen(tm_wset *w);
void tm_wset_index_rest(tm_wset *w);
void tm_wset_note_nested(tm_wset *w, tm_wentry *e);

static inline size_t tm_wset_hash(uintptr_t word)
{
    return (size_t)((word >> 3) * 0x9E3779B97F4A7C15ull >> 32);
}

/* The filter bit of an aligned word. */
static inline uint64_t tm_wset_bit(uintptr_t word) { return 1ull << ((word >> 3) & 63); }

/* An index slot holds an entry of the current generation (else it is empty). */
static inline bool tm_wset_slot_live(const tm_wset *w, uint64_t slot)
{
    return (slot & ~0xffffffffull) == w->gen;
}

static inline tm_wentry *tm_wset_find(tm_wset *w, uintptr_t word)
{
    if (!(w->filter & tm_wset_bit(word)))
        return NULL;
    if (w->indexed != w->n)
        tm_wset_index_rest(w);
    size_t h = tm_wset_hash(word) & w->index_mask;
    for (uint64_t s; tm_wset_slot_live(w, s = w->index[h]); h = (h + 1) & w->index_mask)
        if (w->e[(uint32_t)s - 1].word == word)
            return &w->e[(uint32_t)s - 1];
    return NULL;
}

/* Appends an entry for `word`, known not to be in the set, if the entry array has room;
 * returns false otherwise (tm_wset_put grows it). The index catches up at the next lookup. */
static inline __attribute__((always_inline)) bool tm_wset_add_fast(tm_wset *w, uintptr_t word,
                                                                   uint64_t val, uint64_t mask)
{
    size_t n = w->n;
    if (__builtin_expect(n == w->cap, 0))
        return false;
    tm_wentry *e = &w->e[n];
    e->word = word;
    e->val = val;
    e->mask = mask;
    w->n = n + 1;
    w->filter |= tm_wset_bit(word);
    return true;
}

/* The write-set filter says `word` cannot be in the set. */
static inline bool tm_wset_surely_new(const tm_wset *w, uintptr_t word)
{
    return !(w->filter & tm_wset_bit(word));
}

/* Merges the bytes of `val` under `mask` into the entry for the aligned `word`. */
void tm_wset_put(tm_wset *w, uintptr_t word, uint64_t val, uint64_t mask);
/* Overlays buffered bytes of [addr, addr+len) onto dst; returns true if every byte was buffered. */
bool tm_wset_overlay(tm_wset *w, void *dst, const void *addr, size_t len);
void tm_wset_writeback(const tm_wset *w, tm_skip skip);
/* Some byte of [addr, addr+len) is buffered (exact, unlike tm_wset_maybe's filter). */
bool tm_wset_holds(tm_wset *w, const void *addr, size_t len);
/* Writes the buffered bytes of [addr, addr+len) to memory now and drops them from the log (their
 * mask bits), for memory the transaction owns that code outside it must read before the commit:
 * a C++ exception object at its throw (abi/eh.c). */
void tm_wset_flush_range(tm_wset *w, void *addr, size_t len);
void tm_wset_truncate(tm_wset *w, size_t n, size_t undo_mark);
void tm_wset_reset(tm_wset *w);

static inline bool tm_wset_maybe(const tm_wset *w, const void *addr, size_t len)
{
    if (w->n == 0)
        return false;
    uintptr_t a = (uintptr_t)addr & ~(uintptr_t)7, end = (uintptr_t)addr + len;
    for (; a < end; a += 8)
        if (w->filter & tm_wset_bit(a))
            return true;
    return false;
}

/* Releases all memory of the given logs (any may be NULL). */
void tm_logs_free(tm_undo *u, tm_rset *r, tm_wset *w);

#endif

/* Undo log, value read log and word-granular redo log (see log.h for the layouts). */
#include <string.h>
#include <stdlib.h>

#include "log.h"
#include "tx.h"

#define TM_UNDO_FOOTER (2 * sizeof(uintptr_t))

/* ---- undo log ---------------------------------------------------------------------------- */

void tm_undo_push(tm_undo *u, const void *addr, size_t len)
{
    size_t body = (len + 7) & ~(size_t)7;
    size_t need = u->len + body + TM_UNDO_FOOTER;
    if (TM_UNLIKELY(need > u->cap)) {
        size_t cap = u->cap ? u->cap : 1024;
        while (cap < need)
            cap *= 2;
        u->buf = tm_log_grow(u->buf, cap, "undo log");
        u->cap = cap;
    }
    unsigned char *p = u->buf + u->len;
    memcpy(p, addr, len);
    uintptr_t footer[2] = {(uintptr_t)addr, len};
    memcpy(p + body, footer, sizeof footer);
    u->len = need;
    u->count++;
}

void tm_undo_rollback(tm_undo *u, size_t mark, tm_skip skip)
{
    size_t pos = u->len;
    while (pos > mark) {
        uintptr_t footer[2];
        memcpy(footer, u->buf + pos - TM_UNDO_FOOTER, sizeof footer);
        size_t len = footer[1], body = (len + 7) & ~(size_t)7;
        pos -= TM_UNDO_FOOTER + body;
        if (!tm_skip_hits(skip, footer[0], len))
            memcpy((void *)footer[0], u->buf + pos, len);
    }
    u->len = mark;
}

/* Calls fn(ctx, addr, len) for every range the undo log holds (ext/wake.c: what a
 * write-through commit wrote). */
TM_HIDDEN void tm_undo_ranges(const tm_undo *u, void (*fn)(void *, uintptr_t, size_t), void *ctx)
{
    size_t pos = u->len;
    while (pos > 0) {
        uintptr_t footer[2];
        memcpy(footer, u->buf + pos - TM_UNDO_FOOTER, sizeof footer);
        pos -= TM_UNDO_FOOTER + ((footer[1] + 7) & ~(size_t)7);
        fn(ctx, footer[0], footer[1]);
    }
}

void tm_undo_reset(tm_undo *u)
{
    u->len = 0;
    u->count = 0;
}

/* ---- read log ---------------------------------------------------------------------------- */

void tm_rset_push(tm_rset *r, const void *addr, const void *val, size_t len)
{
    const unsigned char *a = addr, *v = val;
    while (len) {
        size_t chunk = len < 8 ? len : 8;
        if (TM_UNLIKELY(r->n == r->cap)) {
            size_t cap = r->cap ? r->cap * 2 : 256;
            r->e = tm_log_grow(r->e, cap * sizeof *r->e, "read log");
            r->cap = cap;
        }
        tm_rentry *e = &r->e[r->n++];
        e->addr = (uintptr_t)a;
        e->len = (uint32_t)chunk;
        e->val = 0;
        memcpy(&e->val, v, chunk);
        a += chunk;
        v += chunk;
        len -= chunk;
    }
}

void tm_olog_push(tm_olog *l, uintptr_t orec)
{
    if (TM_UNLIKELY(l->cur == l->end)) {
        size_t n = (size_t)(l->cur - l->base), cap = n ? 2 * n : 256;
        l->base = tm_log_grow(l->base, cap * sizeof *l->base, "read log");
        l->cur = l->base + n;
        l->end = l->base + cap;
    }
    *l->cur++ = orec;
}

void tm_olog_free(tm_olog *l)
{
    free(l->base);
    *l = (tm_olog){0};
}

bool tm_rset_valid(const tm_rset *r)
{
    for (size_t i = 0; i < r->n; i++) {
        const tm_rentry *e = &r->e[i];
        uint64_t now = 0;
        if (e->len == 8)
            now = __atomic_load_n((const uint64_t *)e->addr, __ATOMIC_RELAXED);
        else
            memcpy(&now, (const void *)e->addr, e->len);
        if (now != e->val)
            return false;
    }
    return true;
}

/* ---- redo log ---------------------------------------------------------------------------- */

/* Indexes entries [from, n) (the index has room: at most half full). */
static void tm_wset_index_from(tm_wset *w, size_t from)
{
    for (size_t i = from; i < w->n; i++) {
        size_t h = tm_wset_hash(w->e[i].word) & w->index_mask;
        while (tm_wset_slot_live(w, w->index[h]))
            h = (h + 1) & w->index_mask;
        w->index[h] = w->gen | (i + 1);
    }
    w->indexed = w->n;
}

/* The filter of entries [0, n), rebuilt when entries were dropped. */
static void tm_wset_refilter(tm_wset *w)
{
    w->filter = 0;
    for (size_t i = 0; i < w->n; i++)
        w->filter |= tm_wset_bit(w->e[i].word);
}

void tm_wset_reindex(tm_wset *w, size_t want)
{
    size_t size = 64;
    while (size < want * 2)
        size *= 2;
    if (size - 1 != w->index_mask || !w->index) {
        /* the new table first: a failed growth leaves the old one in place */
        uint64_t *index = tm_log_grow(NULL, size * sizeof *w->index, "write-set index");
        free(w->index);
        w->index = index;
        w->index_mask = size - 1;
    }
    memset(w->index, 0, size * sizeof *w->index);
    if (!w->gen)
        w->gen = 1ull << 32;
    tm_wset_refilter(w);
    tm_wset_index_from(w, 0);
}

/* Indexes the entries appended since the last lookup, growing the index to stay at most half
 * full. */
void tm_wset_index_rest(tm_wset *w)
{
    if (!w->index || w->n * 2 > w->index_mask + 1)
        tm_wset_reindex(w, w->n);
    else
        tm_wset_index_from(w, w->indexed);
}

void tm_wset_put(tm_wset *w, uintptr_t word, uint64_t val, uint64_t mask)
{
    tm_wentry *e = tm_wset_find(w, word);
    if (!e) {
        if (w->n == w->cap) {
            size_t cap = w->cap ? w->cap * 2 : 256;
            w->e = tm_log_grow(w->e, cap * sizeof *w->e, "write set");
            w->cap = cap;
        }
        bool added = tm_wset_add_fast(w, word, val & mask, mask);
        (void)added; /* the array has room now */
        return;
    }
    if (TM_UNLIKELY((size_t)(e - w->e) < w->nest_mark))
        tm_wset_note_nested(w, e);
    e->val = (e->val & ~mask) | (val & mask);
    e->mask |= mask;
}

/* Empties the index in O(1): slots of older generations read as empty. Every 2^32 resets the
 * generation wraps and the table is cleared once. */
void tm_wset_new_gen(tm_wset *w)
{
    w->gen += 1ull << 32;
    if (TM_UNLIKELY(w->gen == 0)) {
        w->gen = 1ull << 32;
        if (w->index)
            memset(w->index, 0, (w->index_mask + 1) * sizeof *w->index);
    }
}

void tm_wset_note_nested(tm_wset *w, tm_wentry *e)
{
    if (w->undo_n == w->undo_cap) {
        size_t cap = w->undo_cap ? w->undo_cap * 2 : 64;
        w->undo = tm_log_grow(w->undo, cap * sizeof *w->undo, "nested write undo");
        w->undo_cap = cap;
    }
    w->undo[w->undo_n++] = (tm_wundo){(size_t)(e - w->e), e->val, e->mask};
}

void tm_wset_write(tm_wset *w, void *addr, const void *src, size_t len)
{
    uintptr_t a = (uintptr_t)addr;
    const unsigned char *s = src;
    while (len) {
        uintptr_t word = a & ~(uintptr_t)7;
        size_t off = a - word, n = 8 - off < len ? 8 - off : len;
        uint64_t val = 0, mask = (n == 8) ? ~0ull : (((1ull << (n * 8)) - 1) << (off * 8));
        memcpy((unsigned char *)&val + off, s, n);
        tm_wset_put(w, word, val, mask);
        a += n;
        s += n;
        len -= n;
    }
}

bool tm_wset_overlay(tm_wset *w, void *dst, const void *addr, size_t len)
{
    uintptr_t a = (uintptr_t)addr;
    unsigned char *d = dst;
    bool all = true;
    while (len) {
        uintptr_t word = a & ~(uintptr_t)7;
        size_t off = a - word, n = 8 - off < len ? 8 - off : len;
        const tm_wentry *e = tm_wset_find(w, word);
        if (!e) {
            all = false;
        } else {
            const unsigned char *v = (const unsigned char *)&e->val;
            const unsigned char *m = (const unsigned char *)&e->mask;
            for (size_t i = 0; i < n; i++) {
                if (m[off + i])
                    d[i] = v[off + i];
                else
                    all = false;
            }
        }
        a += n;
        d += n;
        len -= n;
    }
    return all;
}

bool tm_wset_holds(tm_wset *w, const void *addr, size_t len)
{
    if (!tm_wset_maybe(w, addr, len))
        return false;
    for (uintptr_t a = (uintptr_t)addr, end = a + len; a < end;) {
        uintptr_t word = a & ~(uintptr_t)7;
        size_t off = a - word, n = 8 - off < end - a ? 8 - off : end - a;
        const tm_wentry *e = tm_wset_find(w, word);
        uint64_t bytes = n == 8 ? ~0ull : ((1ull << (n * 8)) - 1) << (off * 8);
        if (e && (e->mask & bytes))
            return true;
        a += n;
    }
    return false;
}

void tm_wset_flush_range(tm_wset *w, void *addr, size_t len)
{
    uintptr_t a = (uintptr_t)addr, end = a + len;
    for (uintptr_t word = a & ~(uintptr_t)7; word < end; word += 8) {
        tm_wentry *e = tm_wset_find(w, word);
        if (!e)
            continue;
        unsigned char *v = (unsigned char *)&e->val, *m = (unsigned char *)&e->mask;
        unsigned char *p = (unsigned char *)word;
        for (uintptr_t b = 0; b < 8; b++)
            if (m[b] && word + b >= a && word + b < end) {
                p[b] = v[b];
                m[b] = 0;
            }
    }
}

void tm_wset_writeback(const tm_wset *w, tm_skip skip)
{
    for (size_t i = 0; i < w->n; i++) {
        const tm_wentry *e = &w->e[i];
        if (tm_skip_hits(skip, e->word, 8))
            continue;
        if (e->mask == ~0ull) {
            __atomic_store_n((uint64_t *)e->word, e->val, __ATOMIC_RELAXED);
        } else {
            const unsigned char *v = (const unsigned char *)&e->val;
            const unsigned char *m = (const unsigned char *)&e->mask;
            unsigned char *p = (unsigned char *)e->word;
            for (int b = 0; b < 8; b++)
                if (m[b])
                    p[b] = v[b];
        }
    }
}

void tm_wset_truncate(tm_wset *w, size_t n, size_t undo_mark)
{
    while (w->undo_n > undo_mark) {
        const tm_wundo *u = &w->undo[--w->undo_n];
        if (u->idx < n) {
            w->e[u->idx].val = u->val;
            w->e[u->idx].mask = u->mask;
        }
    }
    if (n < w->n) {
        w->n = n;
        if (w->indexed > n)
            tm_wset_reindex(w, n);
        else /* the index holds nothing past n: only the filter must forget them */
            tm_wset_refilter(w);
    }
}

void tm_wset_reset(tm_wset *w)
{
    if (w->indexed)
        tm_wset_new_gen(w);
    w->indexed = 0;
    w->n = 0;
    w->filter = 0;
    w->undo_n = 0;
    w->nest_mark = 0;
}

void tm_logs_free(tm_undo *u, tm_rset *r, tm_wset *w)
{
    if (u) {
        free(u->buf);
        *u = (tm_undo){0};
    }
    if (r) {
        free(r->e);
        *r = (tm_rset){0};
    }
    if (w) {
        free(w->e);
        free(w->index);
        free(w->undo);
        *w = (tm_wset){0};
    }
}

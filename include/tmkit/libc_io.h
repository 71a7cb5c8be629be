/* tmkit/libc_io.h — how the transaction-safe libc (tmkit/libc.h, which explains the scheme)
 * reads and writes shared memory: through the enclosing transaction's barriers, a word or a
 * block at a time. Included by tmkit/libc.h. */
#ifndef TMKIT__LIBC_PARTS
/* A part of tmkit/libc.h, which includes it where it belongs (and defines TMKIT__LIBC_PARTS
 * first): included directly, it brings in the whole of tmkit/libc.h. */
#include "libc.h"
#elif !defined(TMKIT_LIBC_IO_H)
#define TMKIT_LIBC_IO_H

/* The ABI calls the wrappers use are declared in tmkit/abi.h. The block copies are here, under
 * names GCC does not know, returning nothing: GCC treats _ITM_memcpy* as memcpy and reuses its
 * result as the destination, which GCC's libitm does not return
 * (docs/libitm-differences.md: c_mem_retval); on libitm that corrupted the stack. */
void tmkit__read_block(void *, const void *, size_t) __asm__("_ITM_memcpyRtWn")
    __attribute__((transaction_pure));
void tmkit__write_block(void *, const void *, size_t) __asm__("_ITM_memcpyRnWt")
    __attribute__((transaction_pure));

/* A wrapper: weak, so every translation unit that includes this header can emit it and the
 * program keeps one copy; emitted even if only GCC's transaction_wrap refers to it. */
#define TMKIT_WRAP(fn) __attribute__((transaction_pure, transaction_wrap(fn)))
#define TMKIT_WRAPPER __attribute__((weak, used, transaction_pure))
#define TMKIT_PURE static inline __attribute__((transaction_pure, unused))

/* ---- errno: set through the transaction ----
 * A caller's `errno = 0; v = strtol(...); if (errno)` inside a transaction writes and reads
 * errno through the transaction (GCC instruments it like any variable), so the first write may
 * still be in a redo log when glibc, called by a wrapper, stores ERANGE directly: the caller
 * would read its own 0 back. So a wrapper brackets each glibc call that may set errno with
 * these: memory keeps the errno it had, and glibc's error is written through the transaction
 * (where the caller reads it, and an abort undoes it). */
TMKIT_PURE void tmkit__set_errno(int e) { _ITM_WU4((uint32_t *)&errno, (uint32_t)e); }
TMKIT_PURE int tmkit__errno_begin(void)
{
    int saved = errno;
    errno = 0;
    return saved;
}
TMKIT_PURE void tmkit__errno_end(int saved)
{
    int e = errno;
    errno = saved;
    if (e)
        tmkit__set_errno(e);
}

/* ---- reading bytes through the transaction, a word at a time ---- */

typedef struct {
    uintptr_t base; /* the aligned word held in w (1: none) */
    uint64_t w;
} tmkit__rd;
#define TMKIT_RD {1, 0}

TMKIT_PURE unsigned char tmkit__at(tmkit__rd *r, const void *p)
{
    uintptr_t a = (uintptr_t)p, b = a & ~(uintptr_t)7;
    if (b != r->base) { /* an aligned word never crosses a page: safe to read whole */
        r->base = b;
        r->w = _ITM_RU8((const uint64_t *)b);
    }
    return (unsigned char)(r->w >> ((a & 7) * 8));
}

/* The byte at p of a block [lo, hi) whose length is known: a word at a time where the aligned
 * word lies inside the block, a byte at a time at its edges, so that nothing outside the block
 * is read (bytes next to it may be uninitialized, and a value-validating algorithm such as
 * NOrec compares whole logged words again: valgrind then flags the comparison). */
TMKIT_PURE unsigned char tmkit__at_in(tmkit__rd *r, const void *p, uintptr_t lo, uintptr_t hi)
{
    uintptr_t a = (uintptr_t)p, b = a & ~(uintptr_t)7;
    if (b >= lo && b + 8 <= hi)
        return tmkit__at(r, p);
    return _ITM_RU1((const uint8_t *)p);
}

/* ---- writing: through the transaction, a block at a time ---- */

typedef struct {
    char *dst;        /* where buf goes */
    size_t n;         /* bytes in buf */
    char buf[256];
} tmkit__wr;

TMKIT_PURE void tmkit__flush(tmkit__wr *w)
{
    if (w->n) {
        tmkit__write_block(w->dst, w->buf, w->n);
        w->dst += w->n;
        w->n = 0;
    }
}

TMKIT_PURE void tmkit__put(tmkit__wr *w, char c)
{
    if (w->n == sizeof w->buf)
        tmkit__flush(w);
    w->buf[w->n++] = c;
}

#endif

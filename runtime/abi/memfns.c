/* _ITM_memcpy*, _ITM_memmove*, _ITM_memset*.
 *
 * Name code: R/W = source/destination; n = not transactional (plain access), t = transactional,
 * taR/taW = transactional, already read/written (hints, treated as t). GCC treats these calls
 * like memcpy/memmove/memset and uses their result register, so every one returns dst.
 *
 * A transactional copy goes through a small bounce buffer, chunk by chunk, in the direction that
 * keeps overlapping memmove regions correct.
 */
#include <string.h>

#include "../core/tx.h"
#include "abi.h"
#include "memfns.h"

#define TM_CHUNK 256

void *tm_mem_copy(tm_tx *tx, void *dst, const void *src, size_t len, bool src_tx, bool dst_tx,
                  bool move)
{
    const tm_dispatch *d = tx ? tx->disp : &tm_disp_direct;
    if (len == 0)
        return dst;
    /* Under a redo log, a copy into an exception object this transaction allocated goes to
     * memory: libstdc++'s transactional constructors of std::logic_error and its kin copy a
     * whole object in with _ITM_memcpyRnWt and then store its message pointer directly
     * (cow-stdexcept.cc); buffered, the copy's older bytes would overwrite that store when
     * _ITM_cxa_throw flushes the object (eh.c) or at the commit. The object is the
     * transaction's own until it commits (an abort frees it), so no one else reads it. */
    if (dst_tx && tx && (tx->mode == TM_MODE_NOREC || tx->mode == TM_MODE_OREC_LAZY) &&
        tx->n_actions && tm_eh_owns(tx, dst, len))
        dst_tx = false;
    if (!src_tx && !dst_tx) {
        memmove(dst, src, len);
        return dst;
    }
    uintptr_t s = (uintptr_t)src, t = (uintptr_t)dst;
    bool overlap = move && s < t + len && t < s + len;
    if (!overlap && !src_tx) {
        d->write(tx, dst, src, len);
        return dst;
    }
    if (!overlap && !dst_tx) {
        d->read(tx, dst, src, len);
        return dst;
    }
    unsigned char buf[TM_CHUNK];
    bool backwards = overlap && t > s;
    for (size_t done = 0; done < len;) {
        size_t n = len - done < TM_CHUNK ? len - done : TM_CHUNK;
        size_t off = backwards ? len - done - n : done;
        const unsigned char *from = (const unsigned char *)src + off;
        unsigned char *to = (unsigned char *)dst + off;
        if (src_tx)
            d->read(tx, buf, from, n);
        else
            memcpy(buf, from, n);
        if (dst_tx)
            d->write(tx, to, buf, n);
        else
            memcpy(to, buf, n);
        done += n;
    }
    return dst;
}

#define TM_MEMCPY(NAME, SRC_TX, DST_TX)                                              \
    TM_EXPORT void *NAME(void *dst, const void *src, size_t len)                     \
    {                                                                                \
        return tm_mem_copy(tm_cur, dst, src, len, SRC_TX, DST_TX, false);                        \
    }
#define TM_MEMMOVE(NAME, SRC_TX, DST_TX)                                             \
    TM_EXPORT void *NAME(void *dst, const void *src, size_t len)                     \
    {                                                                                \
        return tm_mem_copy(tm_cur, dst, src, len, SRC_TX, DST_TX, true);                         \
    }

TM_MEMCPY(_ITM_memcpyRnWt, false, true)
TM_MEMCPY(_ITM_memcpyRnWtaR, false, true)
TM_MEMCPY(_ITM_memcpyRnWtaW, false, true)
TM_MEMCPY(_ITM_memcpyRtWn, true, false)
TM_MEMCPY(_ITM_memcpyRtWt, true, true)
TM_MEMCPY(_ITM_memcpyRtWtaR, true, true)
TM_MEMCPY(_ITM_memcpyRtWtaW, true, true)
TM_MEMCPY(_ITM_memcpyRtaRWn, true, false)
TM_MEMCPY(_ITM_memcpyRtaRWt, true, true)
TM_MEMCPY(_ITM_memcpyRtaRWtaR, true, true)
TM_MEMCPY(_ITM_memcpyRtaRWtaW, true, true)
TM_MEMCPY(_ITM_memcpyRtaWWn, true, false)
TM_MEMCPY(_ITM_memcpyRtaWWt, true, true)
TM_MEMCPY(_ITM_memcpyRtaWWtaR, true, true)
TM_MEMCPY(_ITM_memcpyRtaWWtaW, true, true)

TM_MEMMOVE(_ITM_memmoveRnWt, false, true)
TM_MEMMOVE(_ITM_memmoveRnWtaR, false, true)
TM_MEMMOVE(_ITM_memmoveRnWtaW, false, true)
TM_MEMMOVE(_ITM_memmoveRtWn, true, false)
TM_MEMMOVE(_ITM_memmoveRtWt, true, true)
TM_MEMMOVE(_ITM_memmoveRtWtaR, true, true)
TM_MEMMOVE(_ITM_memmoveRtWtaW, true, true)
TM_MEMMOVE(_ITM_memmoveRtaRWn, true, false)
TM_MEMMOVE(_ITM_memmoveRtaRWt, true, true)
TM_MEMMOVE(_ITM_memmoveRtaRWtaR, true, true)
TM_MEMMOVE(_ITM_memmoveRtaRWtaW, true, true)
TM_MEMMOVE(_ITM_memmoveRtaWWn, true, false)
TM_MEMMOVE(_ITM_memmoveRtaWWt, true, true)
TM_MEMMOVE(_ITM_memmoveRtaWWtaR, true, true)
TM_MEMMOVE(_ITM_memmoveRtaWWtaW, true, true)

void *tm_mem_set(tm_tx *tx, void *dst, int c, size_t len)
{
    const tm_dispatch *d = tx ? tx->disp : &tm_disp_direct;
    unsigned char buf[TM_CHUNK];
    memset(buf, c, len < TM_CHUNK ? len : TM_CHUNK);
    for (size_t done = 0; done < len;) {
        size_t n = len - done < TM_CHUNK ? len - done : TM_CHUNK;
        d->write(tx, (unsigned char *)dst + done, buf, n);
        done += n;
    }
    return dst;
}

TM_EXPORT void *_ITM_memsetW(void *dst, int c, size_t len) { return tm_mem_set(tm_cur, dst, c, len); }
TM_EXPORT void *_ITM_memsetWaR(void *dst, int c, size_t len) { return tm_mem_set(tm_cur, dst, c, len); }
TM_EXPORT void *_ITM_memsetWaW(void *dst, int c, size_t len) { return tm_mem_set(tm_cur, dst, c, len); }

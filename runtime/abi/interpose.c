/* memcpy, memmove and memset as the program calls them: plain outside transactions, part of the
 * transaction inside one that can roll back.
 *
 * GCC 12 runs loop distribution after its TM pass, so at -O2 a copy, fill or shift loop in a
 * transaction clone (or a transaction's instrumented path) becomes a plain call to
 * memcpy/memset/memmove, and a byte-counting loop a call to strlen, that no barrier covers. Under libitm such a call reads and writes memory
 * in place: a redo-log algorithm gets it wrong at once (the copy reads memory from before the
 * transaction's own writes; commit writes buffered values back over the fill), and every
 * speculative algorithm, libitm's included, gets it wrong when the attempt aborts (the call's
 * writes are never undone) or races (its reads are never validated):
 * tests/conformance/c_wt_*_loop.c, mt_wt_calls.c.
 *
 * libitm.so.1 precedes libc.so.6 in the search order of every program linked with
 * `gcc -fgnu-tm`, so these definitions, exported under glibc's own versions (memcpy@GLIBC_2.14,
 * memmove@GLIBC_2.2.5, memset@GLIBC_2.2.5, strlen@GLIBC_2.2.5; non-default versions, so
 * nothing linked against
 * this library binds to them by accident), take the program's calls. The check costs a load of
 * the TCB word that holds the thread's descriptor and, when there is one, a load of its mode:
 * outside a transaction, and in serial-irrevocable or uninstrumented code (mode DIRECT), the call
 * goes on to glibc's implementation (core/libc_direct.c). Inside an attempt that can roll back,
 * the bytes go through the attempt's barriers (memfns.c: the same code as _ITM_memcpyRtWt), so they
 * are undo-logged or buffered, locked and validated like the transaction's own accesses, except:
 *  - ranges on the thread's own stack are read and written in place: they are the locals of the
 *    transaction's functions, which GCC accesses without barriers after the call (a redo log
 *    would hide the copy from them), and dead frames need no undo; where the write set may hold
 *    some of those words (a redo log, written through a pointer), the call also goes through
 *    the barriers so both views agree;
 *  - user undo actions of a nested transaction, which the runtime runs while the outer attempt
 *    goes on (tx->plain_calls), copy in place as they would under libitm.
 * Only calls made by transactional code are taken into the attempt: the caller's function (its
 * return address's unwind entry, libgcc's _Unwind_Find_FDE, cached per thread) must be a
 * registered transactional clone or the function of one of the open transactions (whose
 * instrumented path is inlined there). Everything else runs plain, as under libitm: code of
 * transaction_pure functions and of other shared libraries that such functions call (zlib's
 * compress() in PARSEC dedup's transactional port mallocs, fills and frees its own buffers; an
 * undo log of those fills wrote into freed, reused blocks when the attempt rolled back:
 * bench/results/third-party, tests/conformance/c_pure_scratch.c). A caller without
 * unwind information counts as transactional (the conservative side of the original design);
 * one in a function's split-off cold part (GCC's `.cold`, an FDE of its own) as plain, which is
 * libitm's behaviour. glibc's internal calls never come here (they bind inside libc). A shared
 * object built with -fgnu-tm and loaded into a program that was not has libc.so.6 first: there
 * these functions are not used (docs/abi.md). */
#include <stddef.h>

#include "../core/tx.h"
#include "../core/libc_direct.h"
#include "abi.h"
#include "memfns.h"

/* libgcc's unwinder: the unwind entry of the function containing pc, and its start (func). */
struct dwarf_eh_bases {
    void *tbase, *dbase, *func;
};
extern const void *_Unwind_Find_FDE(void *pc, struct dwarf_eh_bases *bases);

/* The start of the function containing return address pc, 0 if unknown (cached per thread). */
static uintptr_t tm_func_of(tm_tx *tx, uintptr_t pc)
{
    unsigned h = (unsigned)((pc * 0x9E3779B97F4A7C15ull) >> 60) % TM_CALLER_CACHE;
    if (tx->caller_pc[h] == pc)
        return tx->caller_fn[h];
    struct dwarf_eh_bases b;
    tx->plain_calls++; /* the unwinder's own memcpy calls come back here: plain */
    /* pc - 1: a call may be a function's last instruction, its return address the next one's */
    uintptr_t fn = _Unwind_Find_FDE((void *)(pc - 1), &b) ? (uintptr_t)b.func : 0;
    tx->plain_calls--;
    tx->caller_pc[h] = pc;
    tx->caller_fn[h] = fn;
    return fn;
}

/* Was the call at return address ra made by transactional code (see the top)? */
static __attribute__((noinline)) bool tm_called_by_tm_code(tm_tx *tx, uintptr_t ra)
{
    uintptr_t fn = tm_func_of(tx, ra);
    if (!fn)
        return true;
    if (tm_clone_is_clone(fn))
        return true;
    for (size_t k = 0; k < tx->n_cps; k++)
        if (tm_func_of(tx, tm_cp_jb(tx, k)->pc) == fn)
            return true;
    return false;
}

/* [addr, addr + len) lies on the calling thread's stack. */
static bool tm_on_stack(const tm_tx *tx, const void *addr, size_t len)
{
    uintptr_t a = (uintptr_t)addr, lo, hi;
    if (tx->stack_known) {
        lo = tx->stack_lo;
        hi = tx->stack_hi;
    } else { /* an unknown stack (coroutine, alternate stack): from here to the outermost begin */
        lo = (uintptr_t)__builtin_frame_address(0) - 65536;
        hi = tx->jb0.cfa;
    }
    return a >= lo && a < hi && len <= hi - a;
}

/* A stack range the write set may hold (a redo log, written through a pointer): the barriers
 * get the bytes just written in place, so both views agree. */
static void tm_sync_buffered(tm_tx *tx, void *dst, size_t n)
{
    if (tm_wset_maybe(&tx->wset, dst, n))
        tm_mem_copy(tx, dst, dst, n, false, true, false);
}

static __attribute__((noinline)) void *tm_copy_in_tx(tm_tx *tx, void *dst, const void *src,
                                                     size_t n, bool move)
{
    if (n == 0)
        return tm_libc_memmove_p(dst, src, n);
    bool dst_stack = tm_on_stack(tx, dst, n);
    bool src_tx = !tm_on_stack(tx, src, n) || tm_wset_maybe(&tx->wset, src, n);
    if (!dst_stack || src_tx)
        tm_mem_copy(tx, dst, src, n, src_tx, !dst_stack, move);
    else
        tm_libc_memmove_p(dst, src, n);
    if (dst_stack)
        tm_sync_buffered(tx, dst, n);
    return dst;
}

static __attribute__((noinline)) void *tm_set_in_tx(tm_tx *tx, void *dst, int c, size_t n)
{
    if (n == 0)
        return tm_libc_memset_p(dst, c, n);
    if (!tm_on_stack(tx, dst, n))
        return tm_mem_set(tx, dst, c, n);
    tm_libc_memset_p(dst, c, n);
    tm_sync_buffered(tx, dst, n);
    return dst;
}

/* Plain: no descriptor, not in an attempt that can roll back (mode DIRECT: outside
 * transactions, irrevocable or uninstrumented code), the runtime's own calls of program code
 * (tx->plain_calls), or a caller that is not transactional code (ra: its return address; see
 * the top). Laid out for a thread that has a descriptor (every thread of a TM program that ever
 * ran a transaction): its plain path falls through the first tests to glibc's function with
 * no taken branch. */
static inline __attribute__((always_inline)) bool tm_plain(tm_tx *tx, uintptr_t ra)
{
    if (TM_LIKELY(tx != NULL))
        return TM_LIKELY(tx->mode == TM_MODE_DIRECT) || tx->plain_calls ||
               !tm_called_by_tm_code(tx, ra);
    return true;
}

__attribute__((visibility("default"))) void *tm_interpose_memcpy(void *dst, const void *src,
                                                                 size_t n)
{
    tm_tx *tx = tm_cur_tcb();
    if (tm_plain(tx, (uintptr_t)__builtin_return_address(0)))
        return tm_libc_memcpy_p(dst, src, n);
    return tm_copy_in_tx(tx, dst, src, n, false);
}

__attribute__((visibility("default"))) void *tm_interpose_memmove(void *dst, const void *src,
                                                                  size_t n)
{
    tm_tx *tx = tm_cur_tcb();
    if (tm_plain(tx, (uintptr_t)__builtin_return_address(0)))
        return tm_libc_memmove_p(dst, src, n);
    return tm_copy_in_tx(tx, dst, src, n, true);
}

/* strlen: GCC 12's loop distribution also turns a byte-counting loop into a strlen call. Inside
 * an attempt, the string is read through the barriers a word at a time (an aligned word never
 * crosses a page, so a string that ends before an unmapped page is safe), except on the
 * thread's own stack where the write set holds none of it. */
static __attribute__((noinline)) size_t tm_strlen_in_tx(tm_tx *tx, const char *s)
{
    if (tm_on_stack(tx, s, 1) && tx->wset.n == 0)
        return tm_libc_strlen_p(s);
    uintptr_t a = (uintptr_t)s, w = a & ~(uintptr_t)7;
    for (;; w += 8) {
        uint64_t v;
        tx->disp->read(tx, &v, (const void *)w, 8);
        for (uintptr_t b = w < a ? a : w; b < w + 8; b++)
            if (!((v >> ((b - w) * 8)) & 0xff))
                return (size_t)(b - a);
    }
}

__attribute__((visibility("default"))) size_t tm_interpose_strlen(const char *s)
{
    tm_tx *tx = tm_cur_tcb();
    if (tm_plain(tx, (uintptr_t)__builtin_return_address(0)))
        return tm_libc_strlen_p(s);
    return tm_strlen_in_tx(tx, s);
}

__attribute__((visibility("default"))) void *tm_interpose_memset(void *dst, int c, size_t n)
{
    tm_tx *tx = tm_cur_tcb();
    if (tm_plain(tx, (uintptr_t)__builtin_return_address(0)))
        return tm_libc_memset_p(dst, c, n);
    return tm_set_in_tx(tx, dst, c, n);
}

/* Exported only under these versions (abi/libitm.map declares the nodes); the C names are local. */
__asm__(".symver tm_interpose_memcpy, memcpy@GLIBC_2.14");
__asm__(".symver tm_interpose_memmove, memmove@GLIBC_2.2.5");
__asm__(".symver tm_interpose_memset, memset@GLIBC_2.2.5");
__asm__(".symver tm_interpose_strlen, strlen@GLIBC_2.2.5");

/* _ITM_beginTransaction: the transaction's checkpoint (x86-64 SysV).
 *
 * It behaves like setjmp: it records the callee-saved registers, the caller's stack pointer (the
 * CFA) and the return address, and returns the action bits from the C side. tm_longjmp
 * (core/longjmp.S) later resumes "inside" the original call: registers restored, stack pointer
 * back at the CFA, control at the return address, %eax = new action bits. MXCSR and the x87
 * control word are callee-saved by the ABI, so they are restored too. Layout: struct tm_jmpbuf in core/tx.h; every offset and
 * constant used here is in core/tx_layout.h, checked against the C definitions there.
 *
 * The paths, cheapest first:
 *  - Biased (the thread that owns the serial lock's bias, an outermost transaction that cannot
 *    cancel and has GCC's uninstrumented code path, ids left): the transaction can never roll
 *    back, so no register is saved, only the return address (the statistics' site). This is
 *    tm_begin_outer's biased path (core/begin.c) done here, the bias entry included
 *    (core/bias.c: a plain store of shared_ts, then tm_bias_owner read again; the revoker's
 *    membarrier orders the two; without membarrier tm_bias_owner is always 0). 88 instructions
 *    per empty transaction (90 while it also checked for membarrier here) against
 *    113 through tm_begin_outer (callgrind; the mutex build: 78).
 *  - Serial (the same, but other threads transact and adaptive runs serially, excluding
 *    readers): nothing saved either; one compare-and-swap takes the serial lock, as
 *    tm_serial_trylock_fast does (core/serial_fast.h). tm_begin_serial_c or _locked
 *    (core/begin.c) take over by tail call when the lock is held or the serial mode ended.
 *    With statistics on, the attempt is counted whole (TM_STATS_WHOLE below), on the serial
 *    path before the lock is taken, so that counting does not lengthen the critical section.
 *  - Other threads in a speculative mode (or another algorithm): the registers go into
 *    tx->jb0 and we go straight to tm_begin_outer_spec (core/begin.c), whose attempts can roll
 *    back and which stores the two control words (tm_begin_outer's checks would only fail
 *    again).
 *  - Any other outermost transaction of a thread that has a descriptor: the registers go into
 *    tx->jb0 (offset 0 of the descriptor) and we tail-call tm_begin_outer(properties, tx),
 *    which returns directly to the transaction's code.
 *  - Otherwise (first transaction of a thread, nested) the buffer is built on our own frame
 *    and tm_begin(properties, &jb) copies it.
 */
#include "../core/tx_layout.h"

/* A tm_jmpbuf at `base`: the CFA (the address `cfa`), the callee-saved registers and the
 * return address (loaded from `ra`; TM_TX_JB0_PC is also its offset in a tm_jmpbuf, as jb0
 * starts the descriptor). Clobbers %rdx. */
.macro TM_SAVE_REGS base, cfa, ra
        leaq    \cfa, %rdx
        movq    %rdx, 0(\base)
        movq    %rbx, 8(\base)
        movq    %rbp, 16(\base)
        movq    %r12, 24(\base)
        movq    %r13, 32(\base)
        movq    %r14, 40(\base)
        movq    %r15, 48(\base)
        movq    \ra, %rdx
        movq    %rdx, TM_TX_JB0_PC(\base)
.endm

/* Into tx->jb0 (tx in %rax; the CFA is the caller's %rsp once we return), and tx to %rsi for
 * the C begin (%edi still holds the property bits). */
.macro TM_SAVE_JB0
        TM_SAVE_REGS %rax, 8(%rsp), (%rsp)
        movq    %rax, %rsi
.endm

/* Returns to the transaction's code with the action bits of an attempt that cannot roll back:
 * run GCC's uninstrumented path. */
.macro TM_RET_UNINSTRUMENTED
        movl    $TM_A_UNINSTRUMENTED, %eax
        ret
.endm

/* An outermost transaction that cannot roll back starts (begin.c: tm_outer_init, then the
 * irrevocable flags): ids from %ecx (id_next), properties from %edi, descriptor in \tx. */
.macro TM_OUTER_INIT tx, flags
        TM_OUTER_FIELDS \tx
        orl     $\flags, TM_TX_FLAGS(\tx)
.endm

/* The same but the flags (the biased path sets its flags after its check of the bias). */
.macro TM_OUTER_FIELDS tx
        movl    %ecx, TM_TX_ID(\tx)
        incl    %ecx
        movl    %ecx, TM_TX_ID_NEXT(\tx)
        movl    $1, TM_TX_NESTING(\tx)
        movl    %edi, TM_TX_PROP(\tx)
        movl    $0, TM_TX_RETRIES(\tx)
        movb    $0, TM_TX_EH_SAVED(\tx)
        movq    $1, TM_TX_N_CPS(\tx)
        movl    $1, TM_TX_IRREVOCABLE_CPS(\tx)
.endm

/* An attempt that cannot abort, counted whole for the statistics (stats/stats.h), the site
 * being the return address (in %rdx): by one decrement of the descriptor's batch when the batch
 * is of this site and kind (`serial`: 1 for adaptive's serial mode, whose batch pc has bit 63
 * set) and not used up; else by one increment of the site's `field`, made by the commit (the
 * counter is left in tm_tx.stats_pending), and one decrement of its countdown, when
 * the thread has a batch (of another site or kind), the site is the last one it counted
 * outside the batch and the site's countdown has not run out. Then it goes on at `counted`
 * (or returns the action bits, if that is empty). Otherwise (countdown restored) it tail-calls
 * `cfunc`(properties in %edi, tx; stats/stats_begin.c), which counts, and starts the
 * transaction if `counted` is given. Clobbers %rdx and %r9. */
.macro TM_STATS_WHOLE tx, serial, field, cfunc, counted
.if \serial
        btsq    $TM_STATS_SERIAL_BIT, %rdx
.endif
        cmpq    %rdx, TM_TX_STATS_W_PC(\tx)
        jne     3f
        subl    $1, TM_TX_STATS_W_LEFT(\tx)
        jle     2f
        TM_STATS_COUNTED \counted
2:      addl    $1, TM_TX_STATS_W_LEFT(\tx)  /* used up: the C path takes this attempt */
        jmp     1f
3:
.if \serial
        btrq    $TM_STATS_SERIAL_BIT, %rdx
.endif
        cmpq    %rdx, TM_TX_STATS_L0_PC(\tx)
        jne     1f
        cmpq    $0, TM_TX_STATS_W_PC(\tx)
        je      1f                      /* no batch: the C path starts one */
        movq    TM_TX_STATS_L0(\tx), %r9
        subl    $1, TM_SITE_T_LEFT(%r9)
        jle     4f
        leaq    \field(%r9), %r9        /* the commit adds one to it (tm_tx.stats_pending) */
        movq    %r9, TM_TX_STATS_PENDING(\tx)
        TM_STATS_COUNTED \counted
4:      addl    $1, TM_SITE_T_LEFT(%r9)  /* to be timed: the C path counts down itself */
1:      movq    \tx, %rsi
        jmp     \cfunc
.endm

.macro TM_STATS_COUNTED counted
.ifb \counted
        TM_RET_UNINSTRUMENTED
.else
.ifc \counted,lock_serial
        TM_LOCK_SERIAL                  /* inline: no jump back to .Llock_serial */
.else
        jmp     \counted
.endif
.endif
.endm

/* Adaptive's serial mode, descriptor in %rax: the descriptor first (only this thread reads
 * it, so the critical section stays short), then tm_serial_trylock_fast. Used at .Llock_serial
 * and, with statistics on, inline after the count (TM_STATS_COUNTED lock_serial): the jump
 * back to .Llock_serial was one of the ~6 instructions the count added to each serial-mode
 * transaction. */
.macro TM_LOCK_SERIAL
        TM_OUTER_INIT %rax, TM_F_SERIAL_IRREVOCABLE
        movq    %rax, %rsi
        cmpb    $0, tm_htm_on(%rip)
        jne     tm_begin_htm            /* a hardware transaction instead (core/htm.c) */
        xorl    %eax, %eax
        movl    $1, %r8d
        lock cmpxchgl %r8d, tm_serial_line(%rip) /* .w, at offset 0; seq_cst as in serial_fast.h */
        jne     tm_begin_serial_c       /* held: the C version waits */
        cmpl    $0, tm_serial_excl(%rip)  /* relaxed: written only by lock holders */
        je      tm_begin_serial_locked  /* the serial mode ended meanwhile: drain */
        cmpl    $0, tm_orec_atomics_line(%rip) /* relaxed (core/serial_fast.h) */
        jne     tm_begin_serial_locked  /* atomics on the orecs: wait for those in flight */
        cmpq    $0, tm_bias_owner(%rip) /* relaxed (core/tx_modules.h: tm_bias_yield) */
        jne     tm_begin_serial_locked  /* a thread's bias (core/bias.c): take it back */
        TM_RET_UNINSTRUMENTED
.endm

        .text

        .globl  _ITM_beginTransaction
        .type   _ITM_beginTransaction, @function
        /* 16 bytes into a 64-byte line, measured: where the assembler happened to put it,
         * 48 bytes in, the biased begin at 1 thread ran 6% slower (empty and disjoint, 21
         * paired runs each); at 0 bytes, 1-3% slower. Fixed here so that code added elsewhere
         * in the library no longer moves it (the C functions are all 64-byte aligned too,
         * runtime/CMakeLists.txt). */
        .p2align 6
        .nops 16
_ITM_beginTransaction:
        .cfi_startproc
        endbr64
        movq    %fs:TM_TCB_WORD, %rax   /* tx = tm_cur */
        testq   %rax, %rax
        jz      .Lslow
        cmpl    $0, TM_TX_NESTING(%rax)
        jne     .Lslow
#ifdef TMKIT_COUNT_LINES
        jmp     .Lsave                  /* counted in C: tm_begin_outer does the same (lines.h) */
#endif
        movl    %edi, %edx
        andl    $TM_PR_BIASED_NEEDS, %edx
        cmpl    $TM_PR_BIASED_NEEDS, %edx
        jne     .Lsave
        movl    TM_TX_ID_NEXT(%rax), %ecx
        cmpl    TM_TX_ID_END(%rax), %ecx
        je      .Lsave                  /* no ids left (and maybe no checkpoint stack) */
        movq    (%rsp), %rdx            /* the return address: the statistics' site (kept */
        movq    %rdx, TM_TX_JB0_PC(%rax) /* in %rdx for TM_STATS_WHOLE) */
        cmpq    %rax, tm_bias_owner(%rip) /* relaxed load: a first look, read again below */
        jne     .Lshared
        movq    $0, TM_TX_SHARED_TS(%rax) /* active (relaxed: see the comment above) */
        cmpq    %rax, tm_bias_owner(%rip)
        jne     .Lunbias
        TM_OUTER_INIT %rax, TM_F_BIASED_IRREVOCABLE
        cmpb    $0, tm_stats_on(%rip)
        jne     .Lstats
        TM_RET_UNINSTRUMENTED
.Lstats:
        TM_STATS_WHOLE %rax, 0, TM_SITE_FAST, tm_begin_biased_stats,
.Lunbias:                               /* another thread is taking the bias back */
        movq    $-1, TM_TX_SHARED_TS(%rax)  /* TM_TS_INACTIVE (release: a plain x86 store) */
        jmp     .Lsave
.Lshared:                               /* not ours: other threads transact too */
        cmpl    $0, tm_serial_excl(%rip)
        je      .Lgeneral               /* a speculative mode (relaxed: rechecked under the lock) */
        cmpb    $0, tm_stats_on(%rip)   /* statistics count before the lock is taken, so */
        jne     .Lstats_serial          /* that the critical section does not grow */
.Llock_serial:                          /* also where tm_begin_serial_stats goes on */
        TM_LOCK_SERIAL
.Lstats_serial:                         /* counted, then locked (a copy of the above, inline) */
        TM_STATS_WHOLE %rax, 1, TM_SITE_FAST_SERIAL, tm_begin_serial_stats, lock_serial
.Lgeneral:                              /* cannot be biased: straight to the speculative begin */
        TM_SAVE_JB0
        jmp     tm_begin_outer_spec
.Lsave:
        TM_SAVE_JB0
        jmp     tm_begin_outer
.Lslow:
        subq    $88, %rsp               /* 88 + return address = 96: %rsp 16-aligned at the call */
        .cfi_adjust_cfa_offset 88
        TM_SAVE_REGS %rsp, 96(%rsp), 88(%rsp)
        stmxcsr 64(%rsp)
        fnstcw  68(%rsp)
        movq    %rsp, %rsi
        call    tm_begin
        addq    $88, %rsp
        .cfi_adjust_cfa_offset -88
        ret
        .cfi_endproc
        .size   _ITM_beginTransaction, .-_ITM_beginTransaction

        .section .note.GNU-stack,"",@progbits

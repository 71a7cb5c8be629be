/* _ITM_beginTransaction: the transaction's checkpoint (x86-64 SysV).
 *
 * It behaves like setjmp: it records the callee-saved registers, the caller's stack pointer (the
 * CFA) and the return address, and returns the action bits from the C side. tm_longjmp later
 * resumes "inside" the original call: registers restored, stack pointer back at the CFA, control
 * at the return address, %eax = new action bits. MXCSR and the x87 control word are callee-saved
 * by the ABI, so they are restored too. Layout: struct tm_jmpbuf in core/tx.h.
 *
 * Fast path (outermost transaction of a thread that has a descriptor): the registers go straight
 * into tx->jb0 (offset 0 of the descriptor; tx->nesting is at offset 72) and we tail-call
 * tm_begin_outer(properties, tx), which returns directly to the transaction's code. The two
 * control words are not stored here: tm_begin_outer_general (core/begin.c) stores them for the
 * attempts that can roll back; the biased and serial paths cannot, and skip stmxcsr's cost.
 * Otherwise the buffer is built on our own frame and tm_begin(properties, &jb) copies it.
 */
#define TX_NESTING 72
#define TM_TCB_WORD 0x50 /* the TCB word holding tm_cur (core/tx.h) */

        .text

        .globl  _ITM_beginTransaction
        .type   _ITM_beginTransaction, @function
        .p2align 4
_ITM_beginTransaction:
        .cfi_startproc
        endbr64
        movq    %fs:TM_TCB_WORD, %rax   /* tx = tm_cur */
        testq   %rax, %rax
        jz      .Lslow
        cmpl    $0, TX_NESTING(%rax)
        jne     .Lslow
        leaq    8(%rsp), %rdx           /* CFA: the caller's %rsp once we return */
        movq    %rdx, 0(%rax)
        movq    %rbx, 8(%rax)
        movq    %rbp, 16(%rax)
        movq    %r12, 24(%rax)
        movq    %r13, 32(%rax)
        movq    %r14, 40(%rax)
        movq    %r15, 48(%rax)
        movq    (%rsp), %rdx            /* return address */
        movq    %rdx, 56(%rax)
        movq    %rax, %rsi              /* edi still holds the property bits */
        jmp     tm_begin_outer
.Lslow:
        leaq    8(%rsp), %rax
        subq    $88, %rsp               /* 88 + return address = 96: %rsp 16-aligned at the call */
        .cfi_adjust_cfa_offset 88
        movq    %rax, 0(%rsp)
        movq    %rbx, 8(%rsp)
        movq    %rbp, 16(%rsp)
        movq    %r12, 24(%rsp)
        movq    %r13, 32(%rsp)
        movq    %r14, 40(%rsp)
        movq    %r15, 48(%rsp)
        movq    88(%rsp), %rdx          /* return address */
        movq    %rdx, 56(%rsp)
        stmxcsr 64(%rsp)
        fnstcw  68(%rsp)
        movq    %rsp, %rsi
        call    tm_begin
        addq    $88, %rsp
        .cfi_adjust_cfa_offset -88
        ret
        .cfi_endproc
        .size   _ITM_beginTransaction, .-_ITM_beginTransaction

/* void tm_longjmp(const tm_jmpbuf *jb, uint32_t actions): never returns. */
        .globl  tm_longjmp
        .hidden tm_longjmp
        .type   tm_longjmp, @function
        .p2align 4
tm_longjmp:
        .cfi_startproc
        movl    %esi, %eax
        movq    8(%rdi), %rbx
        movq    16(%rdi), %rbp
        movq    24(%rdi), %r12
        movq    32(%rdi), %r13
        movq    40(%rdi), %r14
        movq    48(%rdi), %r15
        ldmxcsr 64(%rdi)
        fldcw   68(%rdi)
        movq    56(%rdi), %rdx
        movq    0(%rdi), %rsp
        jmp     *%rdx
        .cfi_endproc
        .size   tm_longjmp, .-tm_longjmp

        .section .note.GNU-stack,"",@progbits

/* tm_longjmp: the other half of _ITM_beginTransaction's checkpoint (abi/checkpoint.S, x86-64
 * SysV). A restart or a cancel (core/txn.c) resumes "inside" the original call of
 * _ITM_beginTransaction: the callee-saved registers, MXCSR and the x87 control word restored,
 * the stack pointer back at the CFA, control at the return address, %eax = the new action bits.
 * Layout: struct tm_jmpbuf in tx.h (its size and order are checked there). In core, not next to
 * the checkpoint, because core's restart calls it and core calls no layer above it.
 */

        .text

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

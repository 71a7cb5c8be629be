/* A length decoder for x86-64 machine code, enough for the redo-log scan (redo_scan.c) to walk
 * a function instruction by instruction and recognize the few it looks for: calls and jumps
 * (direct, through a register or memory), `rep movs`/`rep stos`, and the instructions that set
 * %rdi or %rsi before them. Legacy prefixes, REX, the one-, two- and three-byte opcode maps,
 * VEX and EVEX; nothing is executed or interpreted beyond that. */
#ifndef TMKIT_X86_INSN_H
#define TMKIT_X86_INSN_H

#include <stdbool.h>
#include <stdint.h>

typedef struct tm_x86_insn {
    uint8_t len;     /* bytes, 0 if the bytes do not decode */
    uint8_t map;     /* 0 one-byte opcodes, 1 0F, 2 0F38, 3 0F3A (also VEX/EVEX maps) */
    uint8_t op;      /* the opcode byte */
    uint8_t rex;     /* REX byte, or 0 (VEX/EVEX: their R and B, as REX bits) */
    bool rep;        /* F3 prefix */
    bool notrack;    /* 3E prefix (CET's notrack, on jumps through tables) */
    bool vex;        /* VEX or EVEX encoded */
    bool has_modrm;
    uint8_t mod, reg, rm; /* ModRM fields, without the REX extensions */
    bool has_sib;
    uint8_t sib_base, sib_index; /* without REX extensions */
    bool rip_rel;    /* the operand is disp32(%rip) */
    int32_t disp;
    int64_t imm;     /* the immediate (rel8/rel32 of branches included), sign-extended */
} tm_x86_insn;

/* Decodes the instruction at p (end: first byte not to read). Returns its length, 0 if it does
 * not decode (unknown or truncated). */
unsigned tm_x86_decode(const uint8_t *p, const uint8_t *end, tm_x86_insn *in)
    __attribute__((visibility("hidden")));

/* Does the instruction write the 64-bit register r (0-15: rax..r15)? Recognizes the ordinary
 * forms (mov, lea, arithmetic, pop, xchg, movzx, cmov); a false "no" is possible for rare
 * ones. */
bool tm_x86_writes_reg(const tm_x86_insn *in, unsigned r) __attribute__((visibility("hidden")));

#endif

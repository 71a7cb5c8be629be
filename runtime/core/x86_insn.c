/* x86-64 instruction lengths and the few operand facts the redo-log scan needs (x86_insn.h).
 * Follows the opcode maps of the Intel SDM, volume 2, appendix A; checked against objdump on
 * whole libraries while it was written (every boundary of libc's and libstdc++'s text agreed). */
#include "x86_insn.h"

enum {
    M = 1,   /* ModRM follows */
    I1 = 2,  /* imm8 / rel8 */
    IZ = 4,  /* imm16 with the 66 prefix, else imm32 (rel32 of branches: always 32) */
    I2 = 8,  /* imm16 */
    X = 16,  /* not an instruction in 64-bit mode (or a prefix, handled before) */
    SP = 32, /* special: immediate decided by the opcode (moffs, mov r64 imm64, enter, F6/F7) */
};

/* The one-byte opcode map. */
static const uint8_t tm_x86_map0[256] = {
    /* 00 */ M, M, M, M, I1, IZ, X, X, M, M, M, M, I1, IZ, X, X,
    /* 10 */ M, M, M, M, I1, IZ, X, X, M, M, M, M, I1, IZ, X, X,
    /* 20 */ M, M, M, M, I1, IZ, X, X, M, M, M, M, I1, IZ, X, X,
    /* 30 */ M, M, M, M, I1, IZ, X, X, M, M, M, M, I1, IZ, X, X,
    /* 40 */ X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    /* 50 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 60 */ X, X, X, M, X, X, X, X, IZ, M | IZ, I1, M | I1, 0, 0, 0, 0,
    /* 70 */ I1, I1, I1, I1, I1, I1, I1, I1, I1, I1, I1, I1, I1, I1, I1, I1,
    /* 80 */ M | I1, M | IZ, X, M | I1, M, M, M, M, M, M, M, M, M, M, M, M,
    /* 90 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, X, 0, 0, 0, 0, 0,
    /* A0 */ SP, SP, SP, SP, 0, 0, 0, 0, I1, IZ, 0, 0, 0, 0, 0, 0,
    /* B0 */ I1, I1, I1, I1, I1, I1, I1, I1, SP, SP, SP, SP, SP, SP, SP, SP,
    /* C0 */ M | I1, M | I1, I2, 0, X, X, M | I1, M | IZ, SP, 0, I2, 0, 0, I1, X, 0,
    /* D0 */ M, M, M, M, X, X, X, 0, M, M, M, M, M, M, M, M,
    /* E0 */ I1, I1, I1, I1, I1, I1, I1, I1, IZ, IZ, X, I1, 0, 0, 0, 0,
    /* F0 */ X, 0, X, X, 0, 0, M | SP, M | SP, 0, 0, 0, 0, 0, 0, M, M,
};

/* The 0F map: ModRM unless listed; immediates where listed. */
static uint8_t tm_x86_map1(uint8_t op)
{
    if ((op >= 0x80 && op <= 0x8f))
        return IZ; /* jcc rel32 */
    if ((op >= 0x30 && op <= 0x37) || (op >= 0xc8 && op <= 0xcf))
        return 0;
    switch (op) {
    case 0x05: case 0x06: case 0x07: case 0x08: case 0x09: case 0x0b: case 0x0e:
    case 0x77: case 0xa0: case 0xa1: case 0xa2: case 0xa8: case 0xa9: case 0xaa:
        return 0;
    case 0x0f: case 0x70: case 0x71: case 0x72: case 0x73: case 0xa4: case 0xac: case 0xba:
    case 0xc2: case 0xc4: case 0xc5: case 0xc6:
        return M | I1;
    default:
        return M;
    }
}

/* ModRM, SIB and displacement at p; returns the bytes they take, or 0 if truncated. */
static unsigned tm_x86_modrm(const uint8_t *p, const uint8_t *end, tm_x86_insn *in)
{
    if (p >= end)
        return 0;
    unsigned n = 1;
    in->has_modrm = true;
    in->mod = p[0] >> 6;
    in->reg = (p[0] >> 3) & 7;
    in->rm = p[0] & 7;
    unsigned disp = in->mod == 1 ? 1 : in->mod == 2 ? 4 : 0;
    if (in->mod != 3 && in->rm == 4) {
        if (p + 1 >= end)
            return 0;
        in->has_sib = true;
        in->sib_base = p[1] & 7;
        in->sib_index = (p[1] >> 3) & 7;
        n = 2;
        if (in->mod == 0 && in->sib_base == 5)
            disp = 4;
    } else if (in->mod == 0 && in->rm == 5) {
        in->rip_rel = true;
        disp = 4;
    }
    if (p + n + disp > end)
        return 0;
    if (disp == 1)
        in->disp = (int8_t)p[n];
    else if (disp == 4)
        in->disp = (int32_t)((uint32_t)p[n] | (uint32_t)p[n + 1] << 8 | (uint32_t)p[n + 2] << 16 |
                             (uint32_t)p[n + 3] << 24);
    return n + disp;
}

static int64_t tm_x86_imm(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    if (n < 8 && (v >> (8 * n - 1)) & 1)
        v |= ~0ull << (8 * n); /* sign-extend */
    return (int64_t)v;
}

unsigned tm_x86_decode(const uint8_t *p, const uint8_t *end, tm_x86_insn *in)
{
    *in = (tm_x86_insn){0};
    const uint8_t *s = p;
    bool opsize = false, addrsize = false;
    for (;; p++) { /* legacy prefixes */
        if (p >= end || p - s > 14)
            return 0;
        uint8_t b = *p;
        if (b == 0x66)
            opsize = true;
        else if (b == 0x67)
            addrsize = true;
        else if (b == 0xf3)
            in->rep = true;
        else if (b == 0x3e)
            in->notrack = true;
        else if (!(b == 0xf0 || b == 0xf2 || b == 0x2e || b == 0x36 || b == 0x26 || b == 0x64 ||
                   b == 0x65))
            break;
    }
    if ((*p & 0xf0) == 0x40) { /* REX */
        in->rex = *p++;
        if (p >= end)
            return 0;
    }
    unsigned flags;
    uint8_t b = *p++;
    if (b == 0xc4 || b == 0xc5 || b == 0x62) { /* VEX (3- and 2-byte), EVEX */
        unsigned extra = b == 0xc4 ? 2 : b == 0xc5 ? 1 : 3;
        if (p + extra >= end)
            return 0;
        in->vex = true;
        in->rex = 0x40 | (~p[0] >> 7 & 1) << 2 | (b != 0xc5 ? (~p[0] >> 5 & 1) : 0);
        in->map = b == 0xc5 ? 1 : (p[0] & (b == 0x62 ? 7 : 0x1f));
        if (b == 0xc4 && (p[1] & 0x80))
            in->rex |= 8; /* W */
        p += extra;
        in->op = *p++;
        flags = (in->map == 1 && in->op == 0x77) ? 0 : M; /* vzeroupper/vzeroall: no ModRM */
        if (in->map == 3 || (in->map == 1 && (tm_x86_map1(in->op) & I1)))
            flags |= I1;
    } else if (b == 0x0f) {
        if (p >= end)
            return 0;
        b = *p++;
        if (b == 0x38 || b == 0x3a) {
            if (p >= end)
                return 0;
            in->map = b == 0x38 ? 2 : 3;
            in->op = *p++;
            flags = b == 0x38 ? M : M | I1;
        } else {
            in->map = 1;
            in->op = b;
            flags = tm_x86_map1(b);
        }
    } else {
        in->op = b;
        flags = tm_x86_map0[b];
        if (flags & X)
            return 0;
    }
    if (flags & M) {
        unsigned n = tm_x86_modrm(p, end, in);
        if (!n)
            return 0;
        p += n;
    }
    unsigned imm = 0;
    if (flags & I1)
        imm += 1;
    if (flags & I2)
        imm += 2;
    if (flags & IZ) /* branches (E8, E9, 0F 8x) keep rel32 */
        imm += (opsize && in->map == 0 && in->op != 0xe8 && in->op != 0xe9) ? 2 : 4;
    if ((flags & SP) && in->map == 0) {
        if (in->op >= 0xa0 && in->op <= 0xa3)
            imm = addrsize ? 4 : 8; /* moffs */
        else if (in->op >= 0xb8 && in->op <= 0xbf)
            imm = (in->rex & 8) ? 8 : opsize ? 2 : 4;
        else if (in->op == 0xc8)
            imm = 3; /* enter imm16, imm8 */
        else if (in->reg <= 1) /* F6/F7 /0 /1: test */
            imm = in->op == 0xf6 ? 1 : opsize ? 2 : 4;
    }
    if (p + imm > end)
        return 0;
    if (imm && imm <= 8 && !(in->op == 0xc8 && in->map == 0))
        in->imm = tm_x86_imm(p, imm);
    p += imm;
    in->len = (uint8_t)(p - s);
    return in->len;
}

bool tm_x86_writes_reg(const tm_x86_insn *in, unsigned r)
{
    unsigned reg = in->reg | ((in->rex >> 2 & 1) << 3);
    unsigned rm = in->rm | ((in->rex & 1) << 3);
    bool rm_is_r = in->has_modrm && in->mod == 3 && rm == r;
    uint8_t op = in->op;
    if (in->vex || in->map != 0) /* any GPR operand may be written: assume it is */
        return (in->has_modrm && (reg == r || rm_is_r)) ||
               (in->map == 1 && op >= 0xc8 && op <= 0xcf && ((op & 7) | (in->rex & 1) << 3) == r);
    if ((op >= 0x50 && op <= 0x57) || (op >= 0xa4 && op <= 0xaf) || op == 0x90)
        return false; /* push; string instructions keep their pointer in its buffer; nop */
    if ((op >= 0x58 && op <= 0x5f) || (op >= 0xb0 && op <= 0xbf) || (op >= 0x91 && op <= 0x97))
        return ((op & 7) | (in->rex & 1) << 3) == r || (op >= 0x91 && op <= 0x97 && r == 0);
    if (!in->has_modrm)
        return (op == 0x98 && r == 0) || (op == 0x99 && r == 2);
    switch (op) {
    case 0x38: case 0x39: case 0x3a: case 0x3b: case 0x84: case 0x85:
        return false; /* cmp, test */
    case 0x02: case 0x03: case 0x0a: case 0x0b: case 0x12: case 0x13: case 0x1a: case 0x1b:
    case 0x22: case 0x23: case 0x2a: case 0x2b: case 0x32: case 0x33: case 0x8a: case 0x8b:
    case 0x8d: case 0x63: case 0x69: case 0x6b:
        return reg == r;
    case 0x86: case 0x87:
        return reg == r || rm_is_r;
    case 0x80: case 0x81: case 0x83:
        return in->reg != 7 && rm_is_r;
    case 0xf6: case 0xf7:
        return in->reg >= 4 ? (r == 0 || r == 2) : (in->reg >= 2 && rm_is_r);
    case 0xfe: case 0xff:
        return in->reg <= 1 && rm_is_r;
    default: /* rm is the destination: mov, add..xor r/m, r, shifts, pop r/m, mov r/m, imm */
        return rm_is_r;
    }
}

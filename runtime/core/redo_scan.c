/* The redo-log scan of one object's transaction clones (`_ZGTt*` functions of its symbol table),
 * instruction by instruction (x86_insn.c). The rules are tmkit check's
 * (tools/tmkit_cli/check/scan.py, which documents them; the two must agree, and
 * tests/unit/test_redo_check.sh compares them on the conformance programs):
 *  - an indirect call, or a jump through a register that is not a switch's table jump, that no
 *    earlier call to _ITM_getTMClone* in the clone accounts for: a transaction_pure function
 *    pointer (each _ITM_getTMClone* call accounts for one). Counting, not data flow, and still
 *    sound for the decision: GCC emits _ITM_getTMClone* only for an indirect call and drops it
 *    when its result is unused, so a clone's L getTMClone calls serve R >= L of its indirect
 *    calls, and of its N = R + P calls at least N - L >= P are reported, whatever the layout
 *    (a report may name the wrong call of the clone; two calls CSE'd onto one getTMClone are
 *    one false report);
 *  - `rep movs` / `rep stos` unless %rdi (and %rsi for movs) was last set from %rsp (or %rbp
 *    after a frame-pointer prologue) in the straight-line code before it;
 *  - a direct call (or tail jump) to the start of a function that is neither a clone, nor the
 *    runtime's, nor harmless (tm_redo_harmless), nor one tmkit takes into the transaction
 *    (memcpy, memmove, memset, strlen): `extern` through a PLT slot to another object, else
 *    `pure`. */
#include <string.h>

#include "redo.h"
#include "x86_insn.h"

#define TM_REDO_BACK 25 /* a ring: the instruction and the 24 before it (scan.py: the same) */

/* Functions that touch no program memory a transaction could have written (scan.py: HARMLESS). */
static bool tm_redo_harmless(const char *n, size_t len)
{
    static const char *const exact[] = {
        "abort", "__stack_chk_fail", "__assert_fail", "_Unwind_Resume", "__tls_get_addr",
        "__errno_location", "__ctype_b_loc", "__ctype_tolower_loc", "__ctype_toupper_loc",
        "malloc", "calloc", "free", "pthread_mutex_lock", "pthread_mutex_unlock",
        "pthread_mutex_trylock", NULL};
    for (int i = 0; exact[i]; i++)
        if (strlen(exact[i]) == len && !strncmp(n, exact[i], len))
            return true;
    if (!strncmp(n, "__cxa_", 6) || !strncmp(n, "_ITM_", 5) || !strncmp(n, "tmkit_", 6))
        return len > 6;
    /* libgcc's arithmetic helpers: __popcountdi2, __divti3, __muldc3, __floatunditf... */
    static const char modes[][3] = {"qi", "hi", "si", "di", "ti", "sf", "df", "xf", "tf",
                                    "hf", "bf", "sc", "dc", "xc", "tc"};
    size_t e = len && n[len - 1] >= '0' && n[len - 1] <= '9' ? len - 1 : len;
    if (len < 5 || n[0] != '_' || n[1] != '_' || e < 5)
        return false;
    for (size_t i = 2; i < e - 2; i++)
        if (n[i] < 'a' || n[i] > 'z')
            return false;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (!strncmp(n + e - 2, modes[i], 2))
            return true;
    return false;
}

/* A called name without its version and GCC's suffixes (.constprop.0, .part.0, .cold...). */
static size_t tm_redo_base_len(const char *n)
{
    size_t k = 0;
    while (n[k] && n[k] != '@' && n[k] != '.')
        k++;
    return k;
}

static bool tm_redo_is_clone(const char *n) { return !strncmp(n, "_ZGTt", 5); }

static bool tm_redo_in(uintptr_t a, const uintptr_t r[2]) { return a >= r[0] && a < r[1]; }

/* The slot a PLT stub at addr (link-time) jumps through: endbr64 and bnd prefixes, then
 * `jmp *slot(%rip)`. 0 if it is not such a stub. */
static uintptr_t tm_redo_plt_slot(const tm_redo_obj *o, uintptr_t addr, uintptr_t limit)
{
    const uint8_t *p = (const uint8_t *)(addr + o->bias);
    const uint8_t *end = (const uint8_t *)((limit - addr < 16 ? limit : addr + 16) + o->bias);
    tm_x86_insn in;
    for (int i = 0; i < 2 && tm_x86_decode(p, end, &in); i++, addr += in.len, p += in.len) {
        if (in.map == 0 && in.op == 0xff && in.reg == 4 && in.rip_rel)
            return addr + in.len + (uintptr_t)(intptr_t)in.disp;
        if (!(in.map == 1 && in.op == 0x1e)) /* only endbr64 may come first */
            break;
    }
    return 0;
}

typedef struct tm_redo_fn {
    const tm_redo_obj *o;
    unsigned mode;
    tm_redo_result *r;
    const tm_redo_sym *sym;
    unsigned licences;   /* _ITM_getTMClone* results not yet called */
    bool frame_pointer;
    tm_x86_insn back[TM_REDO_BACK]; /* the last instructions, a ring */
    unsigned nback;
} tm_redo_fn;

/* Does register reg (7 rdi, 6 rsi) point into the clone's frame, as last set before the rep? */
static bool tm_redo_on_stack(const tm_redo_fn *f, unsigned reg)
{
    unsigned n = f->nback < TM_REDO_BACK - 1 ? f->nback : TM_REDO_BACK - 1;
    for (unsigned k = 1; k <= n; k++) {
        const tm_x86_insn *in = &f->back[(f->nback - k) % TM_REDO_BACK];
        bool branch = in->map == 0 ? (in->op == 0xe8 || in->op == 0xe9 || in->op == 0xeb ||
                                      (in->op >= 0x70 && in->op <= 0x7f) || in->op == 0xc3 ||
                                      in->op == 0xc2 || (in->op == 0xff && in->reg >= 2 &&
                                                         in->reg <= 5))
                                   : in->map == 1 && in->op >= 0x80 && in->op <= 0x8f;
        if (branch)
            return false;
        if (!tm_x86_writes_reg(in, reg))
            continue;
        bool rex_ok = (in->rex & 0x0f) == 8 && !in->vex && in->map == 0; /* REX.W only */
        if (!rex_ok || !in->has_modrm)
            return false;
        if (in->mod == 3) /* mov %rsp,%reg (89 /r) or (8B /r) */
            return (in->op == 0x89 && in->reg == 4 && in->rm == reg) ||
                   (in->op == 0x8b && in->reg == reg && in->rm == 4);
        if (in->op != 0x8d || in->reg != reg)
            return false;
        if (in->has_sib) /* lea d(%rsp),%reg */
            return in->rm == 4 && in->sib_base == 4 && in->sib_index == 4;
        return f->frame_pointer && in->rm == 5 && in->mod != 0; /* lea d(%rbp),%reg */
    }
    return false;
}

/* A call (or tail jump) from the clone to name, through a PLT slot (plt) or not. */
static void tm_redo_call(tm_redo_fn *f, uintptr_t at, const char *name, bool plt, bool own)
{
    size_t len = tm_redo_base_len(name);
    if (len >= 15 && !strncmp(name, "_ITM_getTMClone", 15))
        f->licences++;
    if (tm_redo_is_clone(name) || tm_redo_harmless(name, len))
        return;
    static const char *const taken[] = {"memcpy", "memmove", "memset", "strlen", NULL};
    for (int i = 0; taken[i]; i++)
        if (strlen(taken[i]) == len && !strncmp(name, taken[i], len))
            return;
    tm_redo_found(f->o, f->mode, f->r, plt && !own ? TM_REDO_EXTERN : TM_REDO_PURE,
                  f->sym->name, at, name);
}

/* A direct call or jump from at to target (link-time addresses). */
static void tm_redo_direct(tm_redo_fn *f, uintptr_t at, uintptr_t target, bool jump)
{
    if (target >= f->sym->lo && target < f->sym->hi)
        return; /* inside the clone */
    for (int k = 0; k < 3; k++)
        if (tm_redo_in(target, f->o->plt[k])) {
            const tm_redo_slot *s =
                tm_redo_slot_at(f->o, tm_redo_plt_slot(f->o, target, f->o->plt[k][1]));
            if (s)
                tm_redo_call(f, at, s->name, true, s->own);
            return;
        }
    const tm_redo_sym *t = tm_redo_func_at(f->o, target);
    if (!t || (jump && tm_redo_is_clone(t->name)))
        return; /* into the middle of a function: a shared tail, not a call */
    size_t len = tm_redo_base_len(t->name);
    if (len == tm_redo_base_len(f->sym->name) && !strncmp(t->name, f->sym->name, len))
        return; /* its own parts (.cold) or itself */
    tm_redo_call(f, at, t->name, false, true);
}

/* A jump through a table (a switch), not a tail call through a pointer? */
static bool tm_redo_switch(const tm_redo_fn *f, const tm_x86_insn *in)
{
    if (in->notrack || (in->has_sib && in->mod == 0 && in->sib_base == 5))
        return true; /* CET's notrack, or jmp *table(,%reg,8) */
    if (in->mod != 3 || !f->nback)
        return false;
    const tm_x86_insn *p = &f->back[(f->nback - 1) % TM_REDO_BACK]; /* add %base,%reg */
    unsigned reg = in->rm | (in->rex & 1) << 3;
    return p->map == 0 && !p->vex && p->has_modrm && p->mod == 3 &&
           ((p->op == 0x01 && (p->rm | (p->rex & 1) << 3) == reg) ||
            (p->op == 0x03 && (p->reg | (p->rex >> 2 & 1) << 3) == reg));
}

static void tm_redo_insn(tm_redo_fn *f, const tm_x86_insn *in, uintptr_t at)
{
    uintptr_t next = at + in->len;
    if (in->map == 0 && in->rep && (in->op == 0xa4 || in->op == 0xa5 || in->op == 0xaa ||
                                    in->op == 0xab)) {
        bool copy = in->op <= 0xa5;
        if (!tm_redo_on_stack(f, 7) || (copy && !tm_redo_on_stack(f, 6)))
            tm_redo_found(f->o, f->mode, f->r, copy ? TM_REDO_COPY : TM_REDO_FILL, f->sym->name,
                          at, copy ? "rep movs" : "rep stos");
    } else if (in->map == 0 && (in->op == 0xe8 || in->op == 0xe9 || in->op == 0xeb)) {
        tm_redo_direct(f, at, next + (uintptr_t)in->imm, in->op != 0xe8);
    } else if (in->map == 0 && in->op == 0xff && (in->reg == 2 || in->reg == 4) && !in->vex) {
        uintptr_t slot = next + (uintptr_t)(intptr_t)in->disp;
        const tm_redo_slot *s = in->rip_rel ? tm_redo_slot_at(f->o, slot) : NULL;
        if (s) /* through a GOT slot: a named call (-fno-plt) */
            tm_redo_call(f, at, s->name, true, s->own);
        else if (in->reg == 4 && tm_redo_switch(f, in))
            return;
        else if (f->licences)
            f->licences--;
        else
            tm_redo_found(f->o, f->mode, f->r, TM_REDO_INDIRECT, f->sym->name, at,
                          "a transaction_pure function pointer");
    }
}

static void tm_redo_clone(const tm_redo_obj *o, unsigned mode, tm_redo_result *r,
                          const tm_redo_sym *sym)
{
    bool mapped = false;
    for (unsigned k = 0; k < o->ntext && !mapped; k++)
        mapped = sym->lo >= o->text[k][0] && sym->hi <= o->text[k][1];
    if (!mapped || sym->hi <= sym->lo)
        return; /* not in the loaded code (a symbol of a section not loaded) */
    tm_redo_fn f = {.o = o, .mode = mode, .r = r, .sym = sym};
    const uint8_t *p = (const uint8_t *)(sym->lo + o->bias);
    const uint8_t *end = (const uint8_t *)(sym->hi + o->bias);
    for (uintptr_t at = sym->lo; p < end;) {
        tm_x86_insn *in = &f.back[f.nback % TM_REDO_BACK];
        if (!tm_x86_decode(p, end, in)) {
            tm_redo_found(o, mode, r, TM_REDO_UNDECODED, sym->name, at, "undecodable bytes");
            return;
        }
        /* push %rbp; mov %rsp,%rbp at the start (after endbr64): %rbp is the frame */
        const tm_x86_insn *prev = f.nback ? &f.back[(f.nback - 1) % TM_REDO_BACK] : NULL;
        if (f.nback <= 2 && in->map == 0 && in->op == 0x89 && in->mod == 3 && in->reg == 4 &&
            in->rm == 5 && in->rex == 0x48 && prev && prev->map == 0 && prev->op == 0x55 &&
            !prev->rex)
            f.frame_pointer = true;
        tm_redo_insn(&f, in, at);
        f.nback++;
        at += in->len;
        p += in->len;
    }
}

void tm_redo_scan(const tm_redo_obj *o, unsigned mode, tm_redo_result *r)
{
    /* A function may have several symbols (aliases: C1/C2 constructors, .localalias): scanned
     * once, under a clone name without GCC's suffix if it has one. */
    for (size_t i = 0, j; i < o->nfuncs; i = j) {
        const tm_redo_sym *best = NULL;
        for (j = i; j < o->nfuncs && o->funcs[j].lo == o->funcs[i].lo; j++)
            if (tm_redo_is_clone(o->funcs[j].name) &&
                (!best || (strchr(best->name, '.') && !strchr(o->funcs[j].name, '.'))))
                best = &o->funcs[j];
        if (best)
            tm_redo_clone(o, mode, r, best);
    }
}

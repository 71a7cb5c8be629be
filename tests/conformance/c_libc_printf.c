/* snprintf's own conversions in the transaction-safe libc (include/tmkit/libc_printf.h) against
 * glibc, systematically: every integer conversion (d i u o x X) with every length modifier, c,
 * s (NULL too), p (NULL too) and %%, crossed with flag sets, widths (none, 1, 5, 20, and * of 0,
 * -7 and 12) and precisions (none, ., .0, .1, .5, .20, and .* of -3 and 3), over values that
 * reach each type's limits and the truncation of hh and h. Each case runs once through
 * snprintf and once through a direct vsnprintf inside __transaction_atomic and is compared
 * with glibc's (return value and every byte of the buffer, up to the '#'s beyond); one case in
 * seven is also cut at every buffer size 0..length+1. None may go irrevocable. */
// TMTEST: cflags=-Wno-format-truncation
#include "harness.h"
#include <limits.h>
#include <stdarg.h>
#include <tmkit.h>

#include "libc_vtx.h"

enum { K_INT, K_LL, K_STR, K_PTR, K_NONE };
typedef struct {
    int kind;
    long long i;
    const char *s;
    const void *p;
} arg_t;

static char out[128], ref[128];
static long cases, sweeps;

/* fn(b, n, f, the star arguments st[0..ns), the argument a) */
#define PASS(fn, ...)                                                                       \
    switch (a->kind) {                                                                      \
    case K_INT: r = fn(b, n, f, __VA_ARGS__(int)a->i); break;                               \
    case K_LL: r = fn(b, n, f, __VA_ARGS__ a->i); break;                                    \
    case K_STR: r = fn(b, n, f, __VA_ARGS__ a->s); break;                                   \
    case K_PTR: r = fn(b, n, f, __VA_ARGS__ a->p); break;                                   \
    default: r = fn(b, n, f, __VA_ARGS__ 0);                                                \
    }
#define STARS(fn)                                                                           \
    do {                                                                                    \
        if (ns == 0)                                                                        \
            PASS(fn, )                                                                      \
        else if (ns == 1)                                                                   \
            PASS(fn, st[0], )                                                               \
        else                                                                                \
            PASS(fn, st[0], st[1], )                                                        \
    } while (0)

/* The output of f into b[n]: glibc's (how 0), the wrapper's through snprintf inside a
 * transaction (1) or through a direct vsnprintf inside one (2). */
static int call(int how, char *b, size_t n, const char *f, int ns, const int *st, const arg_t *a)
{
    int r = -9;
    irr = 0;
    if (how == 0) {
        STARS(snprintf);
    } else if (how == 2) {
        STARS(vtx);
    } else {
        __transaction_atomic {
            STARS(snprintf);
            irr = _ITM_inTransaction() == 2;
            if (never_cancel)
                __transaction_cancel;
        }
    }
    return r;
}

static void one(const char *f, int ns, const int *st, const arg_t *a, size_t n, int v)
{
    memset(out, '#', sizeof out);
    memset(ref, '#', sizeof ref);
    int r1 = call(1 + v, out, n, f, ns, st, a), was_irr = irr;
    int r2 = call(0, ref, n, f, ns, st, a);
    if (r1 != r2 || memcmp(out, ref, sizeof out) != 0 || was_irr) {
        fprintf(stderr, "'%s' (kind %d, %lld, stars %d %d) into %zu%s: got %d '%.*s', glibc %d '%.*s'%s\n",
                f, a->kind, a->i, ns > 0 ? st[0] : 0, ns > 1 ? st[1] : 0, n, v ? " (vsnprintf)" : "", r1,
                (int)sizeof out, out, r2, (int)sizeof ref, ref, was_irr ? " (irrevocable)" : "");
        exit(1);
    }
}

static void check(const char *f, int ns, const int *st, const arg_t *a)
{
    one(f, ns, st, a, sizeof out, (int)(cases & 1));
    if (cases++ % 7 == 0) { /* every size that cuts the output, and one that does not */
        int len = call(0, ref, 0, f, ns, st, a);
        for (int n = 0; n <= len + 1 && n < (int)sizeof out; n++)
            one(f, ns, st, a, (size_t)n, n & 1), sweeps++;
    }
}

static const char *const all_flags[] = {"", "-", "+", " ", "#", "0", "-0", "+ ", "#0", "-#", "+0", " 0", "- +#0", "0#+"};
static const char *const few_flags[] = {"", "-", "+", " #", "0", "-+0#"};
static const char *const widths[] = {"", "1", "5", "20", "*", "*", "*"};
static const int wstar[] = {0, 0, 0, 0, 0, -7, 12};
static const char *const precs[] = {"", ".", ".0", ".1", ".5", ".20", ".*", ".*"};
static const int pstar[] = {0, 0, 0, 0, 0, 0, -3, 3};

/* Every flag set (all or a few) x width x precision of the conversion conv with length mod. */
static void cross(const char *mod, char conv, const arg_t *a, int all)
{
    size_t nf = all ? sizeof all_flags / sizeof *all_flags : sizeof few_flags / sizeof *few_flags;
    for (size_t fi = 0; fi < nf; fi++)
        for (size_t wi = 0; wi < sizeof widths / sizeof *widths; wi++)
            for (size_t pi = 0; pi < sizeof precs / sizeof *precs; pi++) {
                if (!all && (wi == 1 || wi == 6 || pi == 1 || pi == 3 || pi == 7))
                    continue;
                char f[64];
                int st[2], ns = 0;
                if (widths[wi][0] == '*')
                    st[ns++] = wstar[wi];
                if (precs[pi][0] && precs[pi][1] == '*')
                    st[ns++] = pstar[pi];
                snprintf(f, sizeof f, "<%%%s%s%s%s%c>", all ? all_flags[fi] : few_flags[fi], widths[wi],
                         precs[pi], mod, conv);
                check(f, ns, st, a);
            }
}

int main(void)
{
    th_check_runtime();
    static const long long ints[] = {0, 1, -1, 7, 8, 42, 255, 256 + 7, -129, 65535, 70000, -32769,
                                     INT_MIN, INT_MAX, UINT_MAX, 0x1234567890abLL, LLONG_MIN, LLONG_MAX};
    static const char *const mods[] = {"", "hh", "h", "l", "ll", "z", "j", "t", "L", "q"};
    const char *convs = "diuoxX";
    for (const char *c = convs; *c; c++)
        for (size_t m = 0; m < sizeof mods / sizeof *mods; m++) {
            if (m >= 8 && *c != 'd' && *c != 'x')
                continue; /* L and q: glibc's names for ll */
            for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
                arg_t a = {m <= 2 ? K_INT : K_LL, ints[i], NULL, NULL};
                if (m > 0 && (i % 3) != m % 3 && i > 2)
                    continue; /* the length modifiers take a third of the values each */
                cross(mods[m], *c, &a, m == 0 && *c != 'i');
            }
        }
    static const int chars[] = {'a', 0, ' ', 0x141, 255};
    for (size_t i = 0; i < sizeof chars / sizeof *chars; i++) {
        arg_t a = {K_INT, chars[i], NULL, NULL};
        cross("", 'c', &a, 1);
    }
    static const char *const strs[] = {"", "a", "hello", "twenty-three characters", NULL};
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++) {
        arg_t a = {K_STR, 0, strs[i], NULL};
        cross("", 's', &a, 1);
    }
    static int obj;
    const void *ptrs[] = {NULL, (void *)1, &obj, (void *)UINTPTR_MAX};
    for (size_t i = 0; i < sizeof ptrs / sizeof *ptrs; i++) {
        arg_t a = {K_PTR, 0, NULL, ptrs[i]};
        cross("", 'p', &a, 1);
    }
    arg_t none = {K_NONE, 0, NULL, NULL};
    cross("", '%', &none, 0);
    printf("ok: %ld cases, %ld more at every cut\n", cases, sweeps);
    return 0;
}

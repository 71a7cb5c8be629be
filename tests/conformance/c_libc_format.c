/* The transaction-safe snprintf and vsnprintf (include/tmkit/libc_fmt.h, libc_printf.h) inside
 * __transaction_atomic give glibc's results (return value, errno, every byte of the buffer) where
 * c_libc_printf's matrix does not reach: floating point (glibc's text, our padding: every flag x
 * width x precision on finite, infinite and NaN values, and texts over the local buffer such as
 * %f of DBL_MAX and %Lf of LDBL_MAX), widths and precisions of thousands (%5000d into 100 bytes
 * returns 5000), %s of strings over the 256-byte write block, the ' flag, %lc, output over
 * INT_MAX (EOVERFLOW). The conversions the wrapper does not take (%n, positional arguments, %ls,
 * %m, widths over INT_MAX) make the transaction irrevocable and then give glibc's result, through
 * snprintf and a direct vsnprintf alike. A cancel undoes the formatted output.
 * libitm's gl_wt and ml_wt crash here: GCC turns strcpy(text, "literal") into _ITM_memcpyRtWt
 * and passes its result on as the %s argument, which libitm does not return (c_mem_retval). */
// TMTEST: cflags=-Wno-format-truncation -Wno-format-overflow -Wno-format
// TMTEST: libitm-methods=serialirr
#include "harness.h"
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <wchar.h>
#include <tmkit.h>

#include "libc_vtx.h"

static char out[8192], ref[8192], text[1024];

static void compare(int line, int r1, int r2, int e1, int e2, int want_irr)
{
    if (r1 != r2 || e1 != e2 || memcmp(out, ref, sizeof out) != 0 || irr != want_irr) {
        fprintf(stderr, "line %d: got %d '%.80s' errno %d, glibc %d '%.80s' errno %d%s\n", line, r1, out, e1,
                r2, ref, e2, irr ? " (irrevocable)" : "");
        exit(1);
    }
}

/* snprintf(buf, n, ...) inside a transaction and plain, then vsnprintf inside one; want_irr:
 * the transaction must (1) or must not (0) have gone irrevocable. */
#define FMT_N(want_irr, n, ...)                                                             \
    do {                                                                                    \
        int r1 = -9, r2, e1, e2;                                                            \
        memset(ref, '#', sizeof ref);                                                       \
        errno = 0;                                                                          \
        r2 = snprintf(ref, n, __VA_ARGS__);                                                 \
        e2 = errno;                                                                         \
        memset(out, '#', sizeof out);                                                       \
        errno = 0;                                                                          \
        irr = -1;                                                                           \
        __transaction_atomic {                                                              \
            r1 = snprintf(out, n, __VA_ARGS__);                                             \
            irr = _ITM_inTransaction() == 2;                                                \
            if (never_cancel)                                                               \
                __transaction_cancel;                                                       \
        }                                                                                   \
        e1 = errno;                                                                         \
        compare(__LINE__, r1, r2, e1, e2, want_irr);                                        \
        memset(out, '#', sizeof out);                                                       \
        errno = 0;                                                                          \
        r1 = vtx(out, n, __VA_ARGS__);                                                      \
        compare(__LINE__, r1, r2, errno, e2, want_irr);                                     \
    } while (0)
#define FMT_CASE(...) FMT_N(0, 40, __VA_ARGS__)

/* Floating point: every flag set x width x precision (with * of both signs) of conv. */
static void floats(char conv, const char *mod, long double x)
{
    static const char *const flags[] = {"", "-", "+", " ", "#", "0", "-0", "+0", " 0#", "-+ #0"};
    static const char *const widths[] = {"", "1", "12", "*", "*"};
    static const int wstar[] = {0, 0, 0, -15, 30};
    static const char *const precs[] = {"", ".", ".3", ".17", ".*"};
    for (size_t fi = 0; fi < sizeof flags / sizeof *flags; fi++)
        for (size_t wi = 0; wi < sizeof widths / sizeof *widths; wi++)
            for (size_t pi = 0; pi < sizeof precs / sizeof *precs; pi++) {
                char f[48];
                int p = (int)(fi + wi) % 3 - 1; /* the .* precision: -1, 0 or 1 */
                snprintf(f, sizeof f, "<%%%s%s%s%s%c>", flags[fi], widths[wi], precs[pi], mod, conv);
                int star_w = widths[wi][0] == '*', star_p = precs[pi][1] == '*';
                if (*mod) { /* long double */
                    if (star_w && star_p) FMT_N(0, sizeof out, f, wstar[wi], p, x);
                    else if (star_w) FMT_N(0, sizeof out, f, wstar[wi], x);
                    else if (star_p) FMT_N(0, sizeof out, f, p, x);
                    else FMT_N(0, sizeof out, f, x);
                } else {
                    if (star_w && star_p) FMT_N(0, sizeof out, f, wstar[wi], p, (double)x);
                    else if (star_w) FMT_N(0, sizeof out, f, wstar[wi], (double)x);
                    else if (star_p) FMT_N(0, sizeof out, f, p, (double)x);
                    else FMT_N(0, sizeof out, f, (double)x);
                }
            }
}

int main(void)
{
    th_check_runtime();
    long big = LONG_MIN;
    FMT_CASE("plain text");
    FMT_CASE("%d|%5d|%-5d|%05d|%+d|% d|%x|%#x|%X|%o|%#o|%u", 42, -42, 7, -7, 3, 3, 255, 255, 255, 8, 8, 4000000000u);
    FMT_CASE("%ld %lld %lu %zu %jd %td %hhd %hd", big, -12345678901234LL, ULONG_MAX, (size_t)77, (intmax_t)-5, (ptrdiff_t)9, 300, 70000);
    FMT_CASE("%*d|%-*d|%.*d|%*.*d|%.0d|%.3d", 6, 12, 6, 12, 4, 5, 8, 3, 9, 0, 7);
    FMT_CASE("%c%c%%%c|%5%|%-*%|%d", 'a', 'b', 'z', 9, 4);
    FMT_CASE("%p %p", (void *)0, (void *)&big);
    FMT_CASE("this line is longer than the forty bytes it may use, truncated %d", 12345);
    FMT_CASE("%'d|%'10u|%'.2f|%'-12d|%'x", 1234567, 7654321u, 1234567.891, -98765, 0xabcdef);
    FMT_CASE("%lc|%5lc|%-3lc|", (wint_t)'A', (wint_t)'b', (wint_t)'c');
    FMT_CASE("x%lcy", (wint_t)0xe9); /* not in the C locale's charset: -1, EILSEQ */
    FMT_N(1, 40, "ab%", 1);           /* a lone % at the end: glibc's, irrevocably */
    /* floating point: glibc's text, the wrapper's padding */
    static const double dbl[] = {0.0, -0.0, 1.0, -1.5, 3.14159, 1e-10, 123456789.125, 1e300, 5e-324,
                                 INFINITY, -INFINITY, NAN, -NAN};
    for (const char *c = "eEfFgGaA"; *c; c++)
        for (size_t i = 0; i < sizeof dbl / sizeof *dbl; i++)
            if (i % 4 == (size_t)(c - "eEfFgGaA") % 4 || i < 2 || i >= 9)
                floats(*c, "", dbl[i]);
    floats('f', "L", 2.5L);
    floats('e', "L", -LDBL_MIN);
    floats('a', "L", 1.0L / 3);
    floats('g', "L", (long double)INFINITY);
    /* texts over the 128-byte local buffer: the transaction's malloc, freed at commit */
    FMT_N(0, sizeof out, "%f|%.300f|%-400e|%0400.2f", DBL_MAX, 1.0 / 3, -2.5, -1.25);
    FMT_N(0, sizeof out, "%Lf", LDBL_MAX); /* 4940 characters */
    FMT_N(0, 100, "%6000.3Lf|%.200g", -LDBL_MAX / 3, 1.0 / 7);
    FMT_N(0, 0, "%.500f", 1.0);
    FMT_N(0, sizeof out, "%llf %Lg", 1.5L, 2.5L); /* glibc takes ll as L for floating point */

    /* widths and precisions of thousands: padding in a loop, counted once the buffer is full */
    FMT_N(0, 100, "%5000d", 42);
    FMT_N(0, 100, "%-5000d|%.5000d|%05000d", -42, 7, -7);
    FMT_N(0, sizeof out, "%5000s|%-3000c|%3000p|%2000p", "right", 'c', (void *)&big, (void *)0);
    FMT_N(0, sizeof out, "%#7000.6000x|%+*.*d|", 0xbeef, -1500, 1400, 99);
    FMT_N(0, 300, "%300d%300d", 1, 2); /* crosses the 256-byte write block, then truncated */
    FMT_N(0, 1, "%9000u", 5u);
    __transaction_atomic { /* only counted: snprintf(NULL, 0, ...) */
        irr = snprintf(NULL, 0, "%*d%s", 100000, 1, "abc");
        if (never_cancel)
            __transaction_cancel;
    }
    CHECK_EQ(irr, 100003);

    /* %s: the argument written through the transaction just before, then read by the wrapper */
    int r1 = -9;
    memset(out, 0, sizeof out);
    __transaction_atomic {
        strcpy(text, "tm-written");
        r1 = snprintf(out, sizeof out, "[%s|%12s|%-12s|%.3s|%.*s|%s|%.5s|%.6s|%3s]", text, text, text, text, 2, text,
                      (char *)NULL, (char *)NULL, (char *)NULL, (char *)NULL);
        irr = _ITM_inTransaction() == 2;
        if (never_cancel)
            __transaction_cancel;
    }
    snprintf(ref, sizeof ref, "[%s|%12s|%-12s|%.3s|%.*s|%s|%.5s|%.6s|%3s]", text, text, text, text, 2, text,
             (char *)NULL, (char *)NULL, (char *)NULL, (char *)NULL);
    CHECK(!irr && strcmp(out, ref) == 0 && r1 == (int)strlen(ref));
    /* %s over the 256-byte write block */
    for (int i = 0; i < 1000; i++)
        text[i] = (char)('!' + (i * 7) % 90);
    static const int lens[] = {255, 256, 257, 511, 600, 1000};
    for (size_t i = 0; i < sizeof lens / sizeof *lens; i++) {
        text[lens[i]] = 0;
        FMT_N(0, sizeof out, "%s|%.300s|%1100s|%-700s|%.*s", text, text, text, text, 257, text);
        FMT_N(0, 257, "<%s>", text);
        FMT_N(0, 513, "%-*s%s", 300, text, text);
        text[lens[i]] = 'x';
    }
    text[1000] = 0;

    /* what the wrapper does not take: glibc's result, irrevocably */
    int n1 = -1, n2 = -2;
    FMT_N(1, 40, "%d%n|%s", 12345, &n1, "after");
    snprintf(ref, 40, "%d%n|%s", 12345, &n2, "after");
    CHECK_EQ(n1, n2);
    FMT_N(1, 40, "%2$s-%1$d-%2$s", 7, "pos");
    FMT_N(1, 40, "%1$*2$d|", 5, 8);
    FMT_N(1, 40, "%ls|%5ls", L"wide", L"ab");
    FMT_N(1, 40, "%d %m", 3); /* errno is 0 before both calls: "Success" */
    /* over INT_MAX bytes: -1 and EOVERFLOW, the buffer as glibc leaves it (glibc takes 9 s to
     * pad that width: its bytes are written out here) */
    errno = 0;
    memset(out, '#', sizeof out);
    __transaction_atomic {
        r1 = snprintf(out, 16, "ab%*dc", INT_MAX - 2, 1);
        if (never_cancel)
            __transaction_cancel;
    }
    CHECK(r1 == -1 && errno == EOVERFLOW);
    CHECK(memcmp(out, "ab             \0#", 17) == 0);

    /* snprintf into a zero-size buffer returns the length, writes nothing */
    __transaction_atomic {
        r1 = snprintf(out, 0, "%d", 123456);
        if (never_cancel)
            __transaction_cancel;
    }
    CHECK_EQ(r1, 6);
    /* a cancelled snprintf leaves the buffer as it was */
    strcpy(out, "before");
    __transaction_atomic {
        snprintf(out, sizeof out, "after %d %s %f %5000d", 1, text, 2.0, 3);
        __transaction_cancel;
    }
    tmkit_compiler_barrier();
    CHECK(strcmp(out, "before") == 0);
    puts("ok");
    return 0;
}

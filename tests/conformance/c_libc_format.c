/* The transaction-safe libc's numbers and formatting (include/tmkit/libc_fmt.h): snprintf,
 * vsnprintf, strtol & co., atoi, qsort and bsearch with a transaction_safe comparator, and the
 * ctype classifications, inside __transaction_atomic, give glibc's results: the conversions'
 * corner cases (flags, width, precision, *, length modifiers, truncation, %%), strings read
 * through the transaction (written by it just before), and numbers that end at the last byte
 * before an unmapped page. None goes irrevocable; a cancel undoes the formatted output.
 * libitm's gl_wt and ml_wt crash here: GCC turns strcpy(text, "literal") into _ITM_memcpyRtWt
 * and passes its result on as the %s argument, which libitm does not return (c_mem_retval). */
// TMTEST: cflags=-Wno-format-truncation -Wno-format-overflow
// TMTEST: libitm-methods=serialirr
#include "harness.h"
#include <ctype.h>
#include <limits.h>
#include <sys/mman.h>
#include <tmkit.h>

static char out[256], ref[256], text[128];
int never_cancel; /* never set: GCC must assume it may be, so the transactions can cancel */

#define FMT_CASE(...)                                                                       \
    do {                                                                                    \
        int r1 = -9, r2, irr = 1;                                                           \
        memset(out, '#', sizeof out);                                                       \
        memset(ref, '#', sizeof ref);                                                       \
        __transaction_atomic {                                                              \
            r1 = snprintf(out, 40, __VA_ARGS__);                                            \
            irr = _ITM_inTransaction() == 2;                                                \
            if (never_cancel)                                                                      \
                __transaction_cancel;                                                       \
        }                                                                                   \
        r2 = snprintf(ref, 40, __VA_ARGS__);                                                \
        if (r1 != r2 || memcmp(out, ref, sizeof out) != 0 || irr) {                         \
            fprintf(stderr, "line %d: got %d '%s', glibc %d '%s'%s\n", __LINE__, r1, out,   \
                    r2, ref, irr ? " (irrevocable)" : "");                                  \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

__attribute__((transaction_safe)) static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static long arr[300], sorted[300];

int main(void)
{
    th_check_runtime();
    long big = LONG_MIN;
    FMT_CASE("plain text");
    FMT_CASE("%d|%5d|%-5d|%05d|%+d|% d|%x|%#x|%X|%o|%#o|%u", 42, -42, 7, -7, 3, 3, 255, 255, 255, 8, 8, 4000000000u);
    FMT_CASE("%ld %lld %lu %zu %jd %td %hhd %hd", big, -12345678901234LL, ULONG_MAX, (size_t)77, (intmax_t)-5, (ptrdiff_t)9, 300, 70000);
    FMT_CASE("%*d|%-*d|%.*d|%*.*d|%.0d|%.3d", 6, 12, 6, 12, 4, 5, 8, 3, 9, 0, 7);
    FMT_CASE("%c%c%%%c", 'a', 'b', 'z');
    FMT_CASE("%p %p", (void *)0, (void *)&big);
    FMT_CASE("%f %.2f %e %g %10.3e %-8.1f| %a", 3.14159, -2.5, 12345.678, 0.0001, 1e-10, 9.99, 1.0);
    FMT_CASE("this line is longer than the forty bytes it may use, truncated %d", 12345);
    /* %s: the argument written through the transaction just before, then read by the wrapper */
    int r1 = -9, irr = 1;
    memset(out, 0, sizeof out);
    __transaction_atomic {
        strcpy(text, "tm-written");
        r1 = snprintf(out, sizeof out, "[%s|%12s|%-12s|%.3s|%.*s|%s]", text, text, text, text, 2, text, (char *)NULL);
        irr = _ITM_inTransaction() == 2;
        if (never_cancel)
            __transaction_cancel;
    }
    snprintf(ref, sizeof ref, "[%s|%12s|%-12s|%.3s|%.*s|%s]", text, text, text, text, 2, text, (char *)NULL);
    CHECK(!irr && strcmp(out, ref) == 0 && r1 == (int)strlen(ref));
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
        snprintf(out, sizeof out, "after %d", 1);
        __transaction_cancel;
    }
    tmkit_compiler_barrier();
    CHECK(strcmp(out, "before") == 0);

    /* numbers */
    static const char *const nums[] = {"0", "42", "-17xyz", "   +99", "0x1fZ", "077", "9223372036854775807",
                                       "9223372036854775808", "-9223372036854775809", "", "abc", " \t\n-0", "18446744073709551615"};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        for (int base = 0; base <= 16; base += 8) {
            char *e1 = NULL, *e2, *e3 = NULL, *e4;
            long v1 = 0, v2;
            unsigned long u1 = 0, u2;
            int err1, err2, a1 = 0, a2;
            strcpy(text, nums[i]);
            errno = 0;
            __transaction_atomic {
                v1 = strtol(text, &e1, base);
                u1 = strtoul(text, &e3, base);
                a1 = atoi(text);
                if (never_cancel)
                    __transaction_cancel;
            }
            err1 = errno;
            errno = 0;
            v2 = strtol(text, &e2, base);
            err2 = errno;
            errno = 0;
            u2 = strtoul(text, &e4, base);
            a2 = atoi(text);
            CHECK(v1 == v2 && e1 == e2 && u1 == u2 && e3 == e4 && a1 == a2);
            CHECK(err1 == 0 || err1 == ERANGE);
            (void)err2;
        }
    /* a number ending at the last byte before an unmapped page */
    char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED && mprotect(page + 4096, 4096, PROT_NONE) == 0);
    memcpy(page + 4096 - 6, "-1234", 6);
    long v = 0;
    __transaction_atomic {
        v = strtol(page + 4096 - 6, NULL, 10);
        if (never_cancel)
            __transaction_cancel;
    }
    CHECK_EQ(v, -1234);

    /* qsort and bsearch through the transaction, a transaction_safe comparator */
    for (int i = 0; i < 300; i++)
        arr[i] = sorted[i] = (i * 7919) % 1000 - 500;
    qsort(sorted, 300, sizeof sorted[0], (int (*)(const void *, const void *))cmp_long);
    long *found = NULL, key = sorted[123];
    __transaction_atomic {
        qsort(arr, 300, sizeof arr[0], (int (*)(const void *, const void *))cmp_long);
        found = bsearch(&key, arr, 300, sizeof arr[0], (int (*)(const void *, const void *))cmp_long);
        if (never_cancel)
            __transaction_cancel;
    }
    CHECK(memcmp(arr, sorted, sizeof arr) == 0);
    CHECK(found && *found == key);

    /* ctype */
    int classes = 0, up = 0;
    __transaction_atomic {
        for (int c = 0; c < 256; c++) {
            classes += isdigit(c) + 2 * isalpha(c) + 4 * isspace(c) + 8 * ispunct(c) + 16 * isupper(c);
            up += toupper(c) + tolower(c);
        }
        if (never_cancel)
            __transaction_cancel;
    }
    int rc = 0, ru = 0;
    for (int c = 0; c < 256; c++) {
        rc += isdigit(c) + 2 * isalpha(c) + 4 * isspace(c) + 8 * ispunct(c) + 16 * isupper(c);
        ru += toupper(c) + tolower(c);
    }
    CHECK_EQ(classes, rc);
    CHECK_EQ(up, ru);
    puts("ok");
    return 0;
}

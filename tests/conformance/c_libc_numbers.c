/* The transaction-safe libc's number parsing, sorting and ctype (include/tmkit/libc_fmt.h,
 * libc_sort.h) inside __transaction_atomic give glibc's results: strtol, strtoul, strtoll,
 * strtoull (value, end pointer, errno) in bases 0, 2, 8, 10, 16 and 36, atoi, atol, atoll, on
 * texts written by the transaction itself and on numbers that end at the last byte before an
 * unmapped page; a number text over 511 characters makes the transaction irrevocable and still
 * gives glibc's result. qsort and bsearch with a transaction_safe comparator, on elements of 8
 * bytes and of 300 and 700 (swapped through the transaction in 256-byte pieces). None of the
 * others goes irrevocable. */
#include "harness.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <sys/mman.h>
#include <tmkit.h>

#define CMP(f) ((int (*)(const void *, const void *))(f))

static char text[700];
int never_cancel; /* never set: GCC must assume it may be, so the transactions can cancel */

typedef struct {
    long l;
    unsigned long ul;
    long long ll;
    unsigned long long ull;
    char *e[4];
    int err[4];
    int i;
    long al;
    long long all;
} parsed;

/* Every parser on s in base b; transaction_safe, so that called inside a transaction it calls
 * tmkit.h's wrappers (its transactional clone) and outside it glibc. */
__attribute__((transaction_safe)) static void parse_all(const char *s, int b, parsed *p)
{
    errno = 0;
    p->l = strtol(s, &p->e[0], b);
    p->err[0] = errno;
    errno = 0;
    p->ul = strtoul(s, &p->e[1], b);
    p->err[1] = errno;
    errno = 0;
    p->ll = strtoll(s, &p->e[2], b);
    p->err[2] = errno;
    errno = 0;
    p->ull = strtoull(s, &p->e[3], b);
    p->err[3] = errno;
    p->i = atoi(s);
    p->al = atol(s);
    p->all = atoll(s);
}

/* parse_all inside a transaction (tx) or plain glibc. */
static void parse(const char *s, int b, int tx, parsed *p, int *irr)
{
    memset(p, 0, sizeof *p);
    if (!tx) {
        parse_all(s, b, p);
        return;
    }
    __transaction_atomic {
        parse_all(s, b, p);
        *irr = _ITM_inTransaction() == 2;
        if (never_cancel)
            __transaction_cancel;
    }
}

static void check_number(const char *s, int want_irr)
{
    static const int bases[] = {0, 2, 8, 10, 16, 36};
    for (size_t k = 0; k < sizeof bases / sizeof *bases; k++) {
        parsed got, ref;
        int irr = -1;
        parse(s, bases[k], 1, &got, &irr);
        parse(s, bases[k], 0, &ref, NULL);
        if (memcmp(&got, &ref, sizeof got) != 0 || irr != want_irr) {
            fprintf(stderr, "'%.40s' base %d: strtol %ld/%ld strtoul %lu/%lu strtoll %lld/%lld strtoull %llu/%llu "
                    "ends %td/%td errno %d/%d atoi %d/%d%s\n", s, bases[k], got.l, ref.l, got.ul, ref.ul,
                    got.ll, ref.ll, got.ull, ref.ull, got.e[0] - s, ref.e[0] - s, got.err[0], ref.err[0],
                    got.i, ref.i, irr ? " (irrevocable)" : "");
            exit(1);
        }
    }
}

__attribute__((transaction_safe)) static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* Big elements (300 and 700 bytes): the key after the first 256-byte swap piece, every other
 * byte derived from the key (all checked after the sort). */
enum { KEY_AT = 264, BIG = 700 };

__attribute__((transaction_safe)) static int cmp_big(const void *a, const void *b)
{
    long x, y;
    memcpy(&x, (const char *)a + KEY_AT, sizeof x);
    memcpy(&y, (const char *)b + KEY_AT, sizeof y);
    return (x > y) - (x < y);
}

static void fill_big(unsigned char *e, size_t size, long key)
{
    for (size_t i = 0; i < size; i++)
        e[i] = (unsigned char)(key * 31 + (long)i);
    memcpy(e + KEY_AT, &key, sizeof key);
}

static long arr[300], sorted[300];
static unsigned char bigs[40 * BIG], want[40 * BIG];

int main(void)
{
    th_check_runtime();
    static const char *const nums[] = {"0", "42", "-17xyz", "   +99", "0x1fZ", "0X", "077", "0b101", "zz9",
                                       "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                                       "-9223372036854775809", "18446744073709551615", "18446744073709551616",
                                       "-1", "2147483648", "-2147483649", "", "abc", " \t\n-0", "+", "- 5",
                                       "1e10", "111111111111111111111111111111111111111111111111111111111111111111"};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        __transaction_atomic { /* the text written by the same transaction before it is read */
            strcpy(text, nums[i]);
            if (never_cancel)
                __transaction_cancel;
        }
        check_number(text, 0);
    }
    /* a number text of 600 characters: read irrevocably by glibc, the same result */
    memset(text, '0', 600);
    strcpy(text + 597, "123");
    check_number(text, 1);
    text[0] = '-';
    check_number(text, 1);
    /* a number ending at the last byte before an unmapped page */
    char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED && mprotect(page + 4096, 4096, PROT_NONE) == 0);
    for (int len = 1; len <= 20; len++) {
        char *s = page + 4096 - len - 1;
        memset(s, '7', (size_t)len);
        s[0] = len % 2 ? '-' : ' ';
        s[len] = 0;
        check_number(s, 0);
    }

    /* qsort and bsearch through the transaction, a transaction_safe comparator */
    for (int i = 0; i < 300; i++)
        arr[i] = sorted[i] = (i * 7919) % 1000 - 500;
    qsort(sorted, 300, sizeof sorted[0], CMP(cmp_long));
    long *found = NULL, *missing = (long *)1, key = sorted[123], absent = 501;
    __transaction_atomic {
        qsort(arr, 300, sizeof arr[0], CMP(cmp_long));
        found = bsearch(&key, arr, 300, sizeof arr[0], CMP(cmp_long));
        missing = bsearch(&absent, arr, 300, sizeof arr[0], CMP(cmp_long));
        if (never_cancel)
            __transaction_cancel;
    }
    CHECK(memcmp(arr, sorted, sizeof arr) == 0);
    CHECK(found && *found == key && !missing);
    /* elements over the 256-byte swap piece */
    static const size_t sizes[] = {BIG, 300};
    for (size_t k = 0; k < 2; k++) {
        size_t size = sizes[k], n = sizeof bigs / BIG;
        for (size_t i = 0; i < n; i++) {
            fill_big(bigs + i * size, size, (long)((i * 13) % n) * 3);
            fill_big(want + i * size, size, (long)i * 3);
        }
        unsigned char probe[BIG], *hit = NULL;
        fill_big(probe, size, 3 * (long)(n / 2));
        __transaction_atomic {
            qsort(bigs, n, size, CMP(cmp_big));
            hit = bsearch(probe, bigs, n, size, CMP(cmp_big));
            if (never_cancel)
                __transaction_cancel;
        }
        CHECK(memcmp(bigs, want, n * size) == 0);
        CHECK(hit == bigs + (n / 2) * size);
    }
    /* a cancelled sort leaves the array as it was */
    for (int i = 0; i < 300; i++)
        arr[i] = 300 - i;
    __transaction_atomic {
        qsort(arr, 300, sizeof arr[0], CMP(cmp_long));
        __transaction_cancel;
    }
    tmkit_compiler_barrier();
    CHECK(arr[0] == 300 && arr[299] == 1);

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

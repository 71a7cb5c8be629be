/* The transaction-safe libc (include/tmkit/libc.h): string and memory functions called inside
 * __transaction_atomic (they would not compile there without the header) give glibc's result
 * on the same inputs, for every length 0..70 at every alignment 0..15 and longer ones across
 * the copies' 256-byte write blocks (up to 600), for strings that end at the last byte before
 * an unmapped page (a wrapper that read past the end would fault), and for heap strings of every
 * length 0..40 (run under valgrind: nothing read outside them may decide a result).
 * Writers (strcpy & co.) leave exactly glibc's bytes; a cancelled transaction leaves none. The
 * transactions can cancel, so they run instrumented (through the wrappers) under every
 * algorithm, and none of them goes irrevocable. */
// TMTEST: valgrind=yes
#include "harness.h"
#include <sys/mman.h>
#include <tmkit.h>

static char *page;     /* two pages: [page, page + 4096) readable, the next one not */
enum { FAR = 700 };       /* where check_writers puts its second and third copies */
static char ref[3 * FAR], got[3 * FAR];
int never_cancel; /* never set: GCC must assume it may be, so the transactions can cancel */

static int irrevocable(void)
{
    return _ITM_inTransaction() == 2 /* inIrrevocableTransaction */;
}

static int sgn(long x) { return (x > 0) - (x < 0); }

/* Lays out a at page + off (length la, NUL-terminated) and b elsewhere. */
static void check_pair(const char *a, const char *b, const char *set)
{
    size_t la = strlen(a), lb = strlen(b);
    long r_len = -1, r_nlen = -1, r_cmp = 9, r_ncmp = 9, r_case = 9, r_ncase = 9, r_mcmp = 9, r_spn = -1,
         r_cspn = -1;
    const char *r_chr = NULL, *r_rchr = NULL, *r_str = NULL, *r_mchr = NULL;
    int irr = 0;
    __transaction_atomic {
        r_len = (long)strlen(a);
        r_nlen = (long)strnlen(a, 5);
        r_cmp = strcmp(a, b);
        r_ncmp = strncmp(a, b, 3);
        r_case = strcasecmp(a, b);
        r_ncase = strncasecmp(a, b, la / 2);
        r_mcmp = memcmp(a, b, la < lb ? la : lb);
        r_spn = (long)strspn(a, set);
        r_cspn = (long)strcspn(a, set);
        r_chr = strchr(a, 'q');
        r_rchr = strrchr(a, 'q');
        r_str = strstr(a, b);
        r_mchr = memchr(a, 'q', la);
        irr = irrevocable();
        if (never_cancel)
            __transaction_cancel;
    }
    CHECK(!irr);
    CHECK_EQ(r_len, (long)strlen(a));
    CHECK_EQ(r_nlen, (long)strnlen(a, 5));
    CHECK_EQ(sgn(r_cmp), sgn(strcmp(a, b)));
    CHECK_EQ(sgn(r_ncmp), sgn(strncmp(a, b, 3)));
    CHECK_EQ(sgn(r_case), sgn(strcasecmp(a, b)));
    CHECK_EQ(sgn(r_ncase), sgn(strncasecmp(a, b, la / 2)));
    CHECK_EQ(sgn(r_mcmp), sgn(memcmp(a, b, la < lb ? la : lb)));
    CHECK_EQ(r_spn, (long)strspn(a, set));
    CHECK_EQ(r_cspn, (long)strcspn(a, set));
    CHECK(r_chr == strchr(a, 'q'));
    CHECK(r_rchr == strrchr(a, 'q'));
    CHECK(r_str == strstr(a, b));
    CHECK(r_mchr == memchr(a, 'q', la));
}

static void make(char *dst, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++)
        dst[i] = "abqQxyzq ,;9"[(i * 7 + seed) % 12];
    dst[len] = 0;
}

static void check_writers(const char *src, size_t n)
{
    /* strcpy, stpcpy, strncpy (padding), strcat, strncat: same bytes as glibc, end pointer */
    char *end = NULL;
    memset(got, '#', sizeof got);
    memset(ref, '#', sizeof ref);
    __transaction_atomic {
        strcpy(got, src);
        end = stpcpy(got + FAR, src);
        strncpy(got + 2 * FAR, src, n);
        strcat(got, "++");
        strncat(got + FAR, src, n / 2);
        if (never_cancel)
            __transaction_cancel;
    }
    strcpy(ref, src);
    char *rend = stpcpy(ref + FAR, src);
    strncpy(ref + 2 * FAR, src, n);
    strcat(ref, "++");
    strncat(ref + FAR, src, n / 2);
    CHECK(memcmp(got, ref, sizeof ref) == 0);
    CHECK_EQ(end - got, rend - ref);
    /* strdup, strndup: transactional allocations with the bytes */
    char *d1 = NULL, *d2 = NULL;
    __transaction_atomic {
        d1 = strdup(src);
        d2 = strndup(src, n / 3);
        if (never_cancel)
            __transaction_cancel;
    }
    CHECK(strcmp(d1, src) == 0);
    CHECK(strlen(d2) == (strlen(src) < n / 3 ? strlen(src) : n / 3) && strncmp(d2, src, strlen(d2)) == 0);
    free(d1);
    free(d2);
    /* a cancelled copy leaves nothing behind */
    memcpy(ref, got, sizeof got);
    __transaction_atomic {
        strcpy(got + 3, "cancelled!");
        strcat(got, src);
        __transaction_cancel;
    }
    tmkit_compiler_barrier();
    CHECK(memcmp(got, ref, sizeof got) == 0);
}

int main(void)
{
    th_check_runtime();
    page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED);
    CHECK(mprotect(page + 4096, 4096, PROT_NONE) == 0);
    static char bbuf[128];
    /* every length to 70 at every alignment; then lengths across the 256-byte write blocks */
    static const size_t longer[] = {120, 200, 248, 255, 256, 257, 263, 300, 511, 512, 513, 600};
    for (size_t i = 0; i < 71 + sizeof longer / sizeof *longer; i++)
        for (size_t off = 0; off < 16; off += i < 71 ? 1 : 5) {
            size_t len = i < 71 ? i : longer[i - 71];
            char *a = page + 1024 + off;
            make(a, len, (unsigned)off);
            make(bbuf, (len * 3) % 9, (unsigned)len);
            check_pair(a, bbuf, "abq");
            check_pair(bbuf, a, " ,;");
            /* the same string ending at the page's last byte */
            char *e = page + 4096 - len - 1;
            make(e, len, (unsigned)off);
            check_pair(e, bbuf, "xyz");
            check_writers(e, len);
        }
    /* heap strings, each in a block of its exact size: the bytes after the NUL are outside it */
    for (size_t len = 0; len <= 40; len++) {
        char *h = malloc(len + 1), *h2 = malloc(len + 1);
        CHECK(h && h2);
        make(h, len, (unsigned)len);
        make(h2, len, (unsigned)len + 1);
        check_pair(h, h2, "abq");
        check_pair(h2, h, "q");
        check_writers(h, len);
        free(h);
        free(h2);
    }
    puts("ok");
    return 0;
}

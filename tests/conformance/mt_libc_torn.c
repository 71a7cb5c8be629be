/* The transaction-safe libc under concurrency: writer threads switch a shared record between
 * two consistent states (name "alpha-<n>" and number n; or name "bravo-bravo-<n>" and number
 * 1000000 + n; the bravo name built with snprintf, stpcpy, strcpy and strcat; eight keys, the
 * number + 0..7 in a scrambled order), while reader threads run strlen, strcmp, strncmp, memcmp,
 * strchr, strrchr, strstr, strspn, strcspn, memchr, strcpy, strncpy, stpcpy, strdup, strndup,
 * strtol, strtoul, atoi, snprintf (%s, %ld, widths) on it, and sort the keys in place with qsort
 * and find one with bsearch, inside transactions. No committed reader transaction may see a
 * mix: its results must all belong to one state. */
// TMTEST: libitm-div=4
// TMTEST: o0-div=4
#include "harness.h"
#include <tmkit.h>

static struct {
    char name[64];
    char digits[24];
    long number;
    long keys[8];
} rec;
static long iters;
int never_cancel; /* never set: GCC must assume it may be, so the transactions can cancel */

__attribute__((transaction_safe)) static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}
#define CMP ((int (*)(const void *, const void *))cmp_long)

static void *writer(void *arg)
{
    long id = (long)(intptr_t)arg;
    for (long i = 0; i < iters; i++) {
        long n = id * 1000000000L + i;
        __transaction_atomic {
            if (i & 1) {
                char num[24];
                snprintf(num, sizeof num, "%ld", n);
                strcpy(stpcpy(rec.name, "bravo-"), "bravo-");
                strcat(rec.name, num);
                rec.number = 1000000 + n;
            } else {
                snprintf(rec.name, sizeof rec.name, "alpha-%ld", n);
                rec.number = n;
            }
            snprintf(rec.digits, sizeof rec.digits, "%ld", rec.number);
            for (int k = 0; k < 8; k++)
                rec.keys[k] = rec.number + (k * 5 + (int)i) % 8;
            if (never_cancel)
                __transaction_cancel;
        }
    }
    return NULL;
}

/* What a reader saw in one transaction. */
typedef struct {
    size_t len;
    int is_bravo, memcmp_bravo, has_double, cmp_sign, atoi_v;
    long parsed, number, last_dash, lead, v_at, o_at, digits_at, key_at;
    unsigned long uparsed;
    char copy[64], fmt[96], ncopy[64], scopy[64], pcopy[64];
    long end_at;
    long keys[8];
    char *dup, *ndup;
} seen;

static long at(const char *p, const char *base) { return p ? p - base : -1; }

static void read_once(seen *z)
{
    __transaction_atomic {
        z->len = strlen(rec.name);
        z->is_bravo = strncmp(rec.name, "bravo", 5) == 0;
        z->memcmp_bravo = memcmp(rec.name, "bravo", 5) == 0;
        z->cmp_sign = strcmp(rec.name, "bravo") > 0 ? 1 : -1;
        z->has_double = strstr(rec.name, "bravo-bravo") != NULL;
        z->last_dash = at(strrchr(rec.name, '-'), rec.name);
        z->v_at = at(strchr(rec.name, 'v'), rec.name);
        z->o_at = at(memchr(rec.name, 'o', z->len), rec.name);
        z->lead = (long)strspn(rec.name, "abcdefghijklmnopqrstuvwxyz-");
        z->digits_at = (long)strcspn(rec.name, "0123456789");
        z->parsed = strtol(rec.digits, NULL, 10);
        z->uparsed = strtoul(rec.digits, NULL, 10);
        z->atoi_v = atoi(rec.digits);
        z->number = rec.number;
        snprintf(z->copy, sizeof z->copy, "%s", rec.name);
        snprintf(z->fmt, sizeof z->fmt, "%-20s|%ld|%8.5s|%x", rec.name, rec.number, rec.name, (unsigned)rec.number);
        strncpy(z->ncopy, rec.name, sizeof z->ncopy);
        strcpy(z->scopy, rec.name);
        z->end_at = stpcpy(z->pcopy, rec.name) - z->pcopy;
        z->dup = strdup(rec.name);
        z->ndup = strndup(rec.name, 7);
        qsort(rec.keys, 8, sizeof rec.keys[0], CMP);
        long key = rec.number + 3;
        z->key_at = at((const char *)bsearch(&key, rec.keys, 8, sizeof rec.keys[0], CMP), (const char *)rec.keys);
        memcpy(z->keys, rec.keys, sizeof z->keys);
        if (never_cancel)
            __transaction_cancel;
    }
}

static void *reader(void *arg)
{
    (void)arg;
    for (long i = 0; i < iters; i++) {
        seen z;
        memset(&z, 0, sizeof z);
        read_once(&z);
        if (!z.len) {
            free(z.dup);
            free(z.ndup);
            continue; /* before the first write */
        }
        long n = z.is_bravo ? z.number - 1000000 : z.number;
        char want[64], want_fmt[96];
        snprintf(want, sizeof want, "%s-%ld", z.is_bravo ? "bravo-bravo" : "alpha", n);
        snprintf(want_fmt, sizeof want_fmt, "%-20s|%ld|%8.5s|%x", want, z.number, want, (unsigned)z.number);
        CHECK(strcmp(z.copy, want) == 0);
        CHECK(strcmp(z.fmt, want_fmt) == 0);
        CHECK(strcmp(z.ncopy, want) == 0 && strcmp(z.scopy, want) == 0 && strcmp(z.pcopy, want) == 0);
        CHECK(strcmp(z.dup, want) == 0);
        CHECK(strncmp(z.ndup, want, 7) == 0 && strlen(z.ndup) == 7);
        CHECK_EQ(z.len, strlen(want));
        CHECK_EQ(z.end_at, (long)strlen(want));
        CHECK_EQ(z.parsed, z.number);
        CHECK_EQ(z.uparsed, (unsigned long)z.number);
        CHECK_EQ(z.atoi_v, (int)z.number);
        CHECK_EQ(z.memcmp_bravo, z.is_bravo);
        CHECK_EQ(z.has_double, z.is_bravo);
        CHECK_EQ(z.cmp_sign, z.is_bravo ? 1 : -1);
        CHECK_EQ(z.last_dash, (long)(strrchr(want, '-') - want));
        CHECK_EQ(z.v_at, z.is_bravo ? 3 : -1);
        CHECK_EQ(z.o_at, z.is_bravo ? 4 : -1);
        CHECK_EQ(z.lead, (long)strspn(want, "abcdefghijklmnopqrstuvwxyz-"));
        CHECK_EQ(z.digits_at, (long)strcspn(want, "0123456789"));
        for (int k = 0; k < 8; k++)
            CHECK_EQ(z.keys[k], z.number + k);
        CHECK_EQ(z.key_at, 3 * (long)sizeof(long));
        free(z.dup);
        free(z.ndup);
    }
    return NULL;
}

static void *worker(void *arg)
{
    long id = (long)(intptr_t)arg;
    return id % 2 ? writer(arg) : reader(arg);
}

int main(void)
{
    th_check_runtime();
    int nt = th_threads();
    if (nt < 2)
        nt = 2;
    iters = th_iters(20000);
    th_run(nt, worker);
    puts("ok");
    return 0;
}

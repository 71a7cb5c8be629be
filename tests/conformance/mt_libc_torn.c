/* The transaction-safe libc under concurrency: writer threads switch a shared record between
 * two consistent states (name "alpha-<n>" and number n; or name "bravo-bravo-<n>" and number
 * 1000000 + n; the bravo name built with strcpy and strcat), while reader threads run strlen,
 * strncmp, memcmp, strrchr, strstr, strspn, strtol, snprintf("%s") and strdup on it inside
 * transactions. No committed reader transaction may see a mix: its results must all belong to
 * one state. */
#include "harness.h"
#include <tmkit.h>

static struct {
    char name[64];
    char digits[24];
    long number;
} rec;
static long iters;
int never_cancel; /* never set: GCC must assume it may be, so the transactions can cancel */

static void *writer(void *arg)
{
    long id = (long)(intptr_t)arg;
    for (long i = 0; i < iters; i++) {
        long n = id * 1000000000L + i;
        __transaction_atomic {
            if (i & 1) {
                char num[24];
                snprintf(num, sizeof num, "%ld", n);
                strcpy(rec.name, "bravo-bravo-");
                strcat(rec.name, num);
                rec.number = 1000000 + n;
            } else {
                snprintf(rec.name, sizeof rec.name, "alpha-%ld", n);
                rec.number = n;
            }
            snprintf(rec.digits, sizeof rec.digits, "%ld", rec.number);
            if (never_cancel)
                __transaction_cancel;
        }
    }
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    for (long i = 0; i < iters; i++) {
        size_t len = 0;
        int is_bravo = 0, memcmp_bravo = -1, has_double = -1;
        long parsed = -1, number = -2, last_dash = -1, lead = -1;
        char copy[64] = "";
        char *dup = NULL;
        __transaction_atomic {
            len = strlen(rec.name);
            is_bravo = strncmp(rec.name, "bravo", 5) == 0;
            memcmp_bravo = memcmp(rec.name, "bravo", 5) == 0;
            has_double = strstr(rec.name, "bravo-bravo") != NULL;
            const char *dash = strrchr(rec.name, '-');
            last_dash = dash ? dash - rec.name : -1;
            lead = (long)strspn(rec.name, "abcdefghijklmnopqrstuvwxyz-");
            parsed = strtol(rec.digits, NULL, 10);
            number = rec.number;
            snprintf(copy, sizeof copy, "%s", rec.name);
            dup = strdup(rec.name);
            if (never_cancel)
                __transaction_cancel;
        }
        if (!len) {
            free(dup);
            continue; /* before the first write */
        }
        char want[64];
        snprintf(want, sizeof want, "%s-%ld", is_bravo ? "bravo-bravo" : "alpha",
                 is_bravo ? number - 1000000 : number);
        CHECK(strcmp(copy, want) == 0);
        CHECK(strcmp(dup, want) == 0);
        CHECK_EQ(len, strlen(want));
        CHECK_EQ(parsed, number);
        CHECK_EQ(memcmp_bravo, is_bravo);
        CHECK_EQ(has_double, is_bravo);
        CHECK_EQ(last_dash, (long)(strrchr(want, '-') - want));
        CHECK_EQ(lead, (long)strspn(want, "abcdefghijklmnopqrstuvwxyz-"));
        free(dup);
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

/* prog_gccirr_lib.c — a shared library with a relaxed transaction that GCC starts irrevocable
 * (fputs on every path): the site is in the library, not in the program; and a transaction_safe
 * function the program calls (test_gcc_irrevocable.sh, prog_gccirr.c). */
#include <stdio.h>

void gccirr_lib_tx(long v);
long gccirr_lib_count(void);
__attribute__((transaction_safe)) long gccirr_lib_safe(long v);

static long count;
static FILE *sink;

/* Before any thread: the transactions only read it. */
__attribute__((constructor)) static void gccirr_lib_open(void)
{
    if (!(sink = fopen("/dev/null", "w")))
        sink = stderr;
}

void gccirr_lib_tx(long v)
{
    __transaction_relaxed {
        count++;
        fputs(v % 2 ? "odd\n" : "even\n", sink); /* GCCIRR_LIB */
    }
}

long gccirr_lib_count(void) { return count; }

/* Called by prog_gccirr.c's transactions before their unsafe call: its clone is here. */
__attribute__((transaction_safe)) long gccirr_lib_safe(long v) { return v; }

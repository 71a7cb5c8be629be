/* Shared by the snprintf tests (c_libc_format.c, c_libc_printf.c): vsnprintf called directly
 * inside a transaction that can cancel, so that it runs instrumented under every algorithm. */
#ifndef TMKIT_TEST_LIBC_VTX_H
#define TMKIT_TEST_LIBC_VTX_H

#include <stdarg.h>
#include <tmkit.h>

int never_cancel; /* never set: GCC must assume it may be, so the transactions can cancel */

static int irr; /* set by the last transaction: it went irrevocable */

/* vsnprintf called directly inside a transaction, with its caller's va_list */
static int vtx(char *b, size_t n, const char *f, ...)
{
    va_list ap;
    int r = -9;
    va_start(ap, f);
    __transaction_atomic {
        r = vsnprintf(b, n, f, ap);
        irr = _ITM_inTransaction() == 2;
        if (never_cancel)
            __transaction_cancel;
    }
    va_end(ap);
    return r;
}

#endif

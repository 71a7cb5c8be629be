/* The tmkit headers under the warnings of a strict program (issue 47: Debian's memcached builds
 * with -Wall -Werror -pedantic -Wmissing-prototypes -Wmissing-declarations -Wredundant-decls).
 * check.sh compiles this file, as C and as C++:
 *   -DHEADER='<tmkit/x.h>'   that header alone,
 *   -DLIBC_BEFORE / -DLIBC_AFTER   with the C library headers programs commonly include before
 *                            or after it (each with and without -D_GNU_SOURCE),
 *   -DALL                    every header at once, the parts before the wholes, between C
 *                            library headers (check.sh fails if a header is missing here). */
#ifdef LIBC_BEFORE
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#endif

#ifdef ALL
#include <tmkit/wait.h>
#include <string.h>
#include <tmkit/privatize.h>
#include <tmkit/volatile.h>
#include <tmkit/libc_sort.h>
#include <stdio.h>
#include <tmkit/libc_printf.h>
#include <tmkit/libc_io.h>
#include <tmkit/libc_fmt.h>
#include <tmkit/libc.h>
#include <pthread.h>
#include <tmkit/group.h>
#include <tmkit/counter.h>
#include <ctype.h>
#include <tmkit/compat.h>
#include <tmkit/atomic.h>
#include <tmkit/abi.h>
#include <stdlib.h>
#include <tmkit.h>
#else
#include HEADER
#endif

#ifdef LIBC_AFTER
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#endif

int main(void)
{
    return 0;
}

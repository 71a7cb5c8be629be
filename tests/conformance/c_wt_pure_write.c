/* transaction_pure code that writes memory the transaction wrote before through barriers:
 * programs wrap snprintf and the like in pure functions and let them write into a buffer. Under
 * libitm's write-through methods the pure function's bytes are what commit leaves; a redo log
 * writes its buffered bytes back over them at commit. Nothing in the pure function reaches the
 * runtime, so a redo-log algorithm cannot be made to keep this: NOrec and orec_lazy fail it (and
 * adaptive never uses them unless TMKIT_ADAPTIVE_MODES=all). docs/algorithms.md says what such
 * programs must not do under the redo-log algorithms. */
// TMTEST: fails=norec,orec_lazy:pure code cannot be seen by a redo log
#include "harness.h"

static char line[64];
static int written;

__attribute__((transaction_pure, noinline)) static int fmt(char *d, size_t n, long v)
{
    return snprintf(d, n, "value %ld", v);
}

int main(void)
{
    th_check_runtime();
    for (long v = 0; v < 100; v += 7) {
        __transaction_atomic {
            for (int i = 0; i < 16; i++)
                line[i] = (char)('a' + i);
            written = fmt(line, sizeof line, v);
        }
        char want[64];
        snprintf(want, sizeof want, "value %ld", v);
        if (strcmp(line, want) != 0) {
            fprintf(stderr, "after commit: '%s', want '%s'\n", line, want);
            return 1;
        }
        CHECK_EQ(written, (long)strlen(want));
    }
    puts("ok");
    return 0;
}

/* transaction_pure code that writes memory the transaction has not written, which the
 * transaction then reads through barriers and updates: it sees the pure function's bytes, and
 * commit keeps them with its own update on top, under every algorithm (redo logs included:
 * the words were not in the write set when the pure code wrote them). */
#include "harness.h"

static char buf[64];
static long total;

__attribute__((transaction_pure, noinline)) static void put_number(char *d, size_t n, long v)
{
    snprintf(d, n, "%ld", v);
}

int main(void)
{
    th_check_runtime();
    for (long v = 1; v < 2000; v = v * 3 + 1) {
        long parsed = 0;
        __transaction_atomic {
            put_number(buf, sizeof buf, v);
            for (int i = 0; buf[i]; i++)
                parsed = parsed * 10 + (buf[i] - '0');
            buf[0] = '#'; /* an instrumented write on top of the pure one */
            total += parsed;
        }
        CHECK_EQ(parsed, v);
        char want[64];
        snprintf(want, sizeof want, "%ld", v);
        want[0] = '#';
        CHECK(strcmp(buf, want) == 0);
    }
    CHECK_EQ(total, 1 + 4 + 13 + 40 + 121 + 364 + 1093);
    puts("ok");
    return 0;
}

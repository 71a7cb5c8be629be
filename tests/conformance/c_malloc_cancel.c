/* malloc and calloc inside transactions. A block allocated in a transaction that is cancelled
 * is released again (100000 cancelled allocations must not grow the heap); one allocated in a
 * committed transaction stays valid. calloc returns zeroed memory, also when the heap hands back
 * dirty memory. mallinfo2() measures the main arena, so this runs on one thread. Nested
 * transactions: c_malloc_nested.c. */
// TMTEST: valgrind=yes
// TMTEST: valgrind-div=4
#include "harness.h"

#include <malloc.h>

static long *g_ptr;
static long *g_keep[16];
static volatile int runtime_one = 1;
static int inside_bad;
TH_PURE static void note(int ok) { inside_bad += !ok; }
TH_PURE static int all_zero(const long *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0)
            return 0;
    return 1;
}

static size_t in_use(void) { return mallinfo2().uordblks; }

int main(void)
{
    th_check_runtime();
    int one = runtime_one;
    long iters = th_iters(100000);

    /* Warm up the runtime's own logs. */
    for (int i = 0; i < 100; i++) {
        __transaction_atomic {
            long *p = malloc(64);
            p[0] = i;
            g_ptr = p;
            if (one)
                __transaction_cancel;
        }
        TH_FORGET_MEMORY();
    }
    CHECK(g_ptr == NULL);

    /* Cancelled malloc: released. */
    size_t before = in_use();
    for (long k = 0; k < iters; k++) {
        __transaction_atomic {
            long *p = malloc(64 + (size_t)(k % 8) * 16);
            p[0] = k;
            p[1] = -k;
            g_ptr = p;
            if (one)
                __transaction_cancel;
        }
        TH_FORGET_MEMORY();
    }
    CHECK(g_ptr == NULL);
    CHECK(in_use() < before + 64 * 1024);

    /* Cancelled calloc: released. */
    before = in_use();
    for (long k = 0; k < iters / 2; k++) {
        __transaction_atomic {
            long *p = calloc(10, sizeof(long));
            p[3] = k;
            g_ptr = p;
            if (one)
                __transaction_cancel;
        }
        TH_FORGET_MEMORY();
    }
    CHECK(g_ptr == NULL);
    CHECK(in_use() < before + 64 * 1024);

    /* Committed malloc/calloc: the blocks stay valid; calloc memory is zero even when the
     * allocator reuses dirty blocks. */
    for (int i = 0; i < 16; i++) {
        long *dirty = malloc(200 * sizeof(long));
        CHECK(dirty != NULL);
        for (int j = 0; j < 200; j++)
            dirty[j] = -1;
        free(dirty);
        __transaction_atomic {
            long *p = (i & 1) ? calloc(200, sizeof(long)) : malloc(200 * sizeof(long));
            if (i & 1)
                note(all_zero(p, 200));
            else
                for (int j = 0; j < 200; j++)
                    p[j] = 0;
            p[i] = i + 1;
            g_keep[i] = p;
        }
        TH_FORGET_MEMORY();
    }
    CHECK_EQ(inside_bad, 0);
    before = in_use();
    for (int i = 0; i < 16; i++) {
        CHECK(g_keep[i] != NULL);
        for (int j = 0; j < 200; j++)
            CHECK_EQ(g_keep[i][j], j == i ? i + 1 : 0);
    }
    CHECK(in_use() == before); /* reading them allocated nothing */

    for (int i = 0; i < 16; i++)
        free(g_keep[i]);
    return 0;
}

/* malloc in nested transactions. A block allocated in a nested transaction that is cancelled is
 * released; blocks of the enclosing transaction stay and are valid after its commit; a block
 * allocated in a nested transaction that commits belongs to the outer transaction (released if
 * the outer one is cancelled, kept if it commits). 1000 rounds must not grow the heap.
 * libitm gl_wt and ml_wt leak here: on the first nested cancel they restart the whole transaction
 * with a method that has closed nesting, and the outer block allocated by the abandoned attempt
 * is never freed (~1 KB per round).
 * The checks after each transaction avoid testing the outer pointer against NULL: with that,
 * GCC 12 -O2 threads the check into the transaction and rejects the program ("unsafe function
 * call within atomic transaction"). */
// TMTEST: libitm-methods=serialirr
#include "harness.h"

#include <malloc.h>

static long *g_inner, *g_outer;
static volatile int runtime_one = 1;

static size_t in_use(void) { return mallinfo2().uordblks; }

int main(void)
{
    th_check_runtime();
    int one = runtime_one;
    long *outer_block = NULL, *inner_kept = NULL;

    for (int warm = 0; warm < 10; warm++) {
        __transaction_atomic {
            long *a = malloc(1000);
            a[0] = 1;
            __transaction_atomic {
                long *b = malloc(5000);
                b[0] = 2;
                g_inner = b;
                if (one)
                    __transaction_cancel;
            }
            outer_block = a;
        }
        TH_FORGET_MEMORY();
        free(outer_block);
    }

    /* Inner cancelled, outer commits. */
    size_t before = in_use();
    for (int k = 0; k < 1000; k++) {
        __transaction_atomic {
            long *a = malloc(1000);
            a[0] = k;
            __transaction_atomic {
                long *b = malloc(5000);
                b[0] = 2;
                g_inner = b;
                if (one)
                    __transaction_cancel;
            }
            outer_block = a;
        }
        TH_FORGET_MEMORY();
        CHECK_EQ(outer_block[0], k);
        CHECK(g_inner == NULL);
        free(outer_block);
    }
    CHECK(in_use() < before + 64 * 1024);

    /* Inner commits, outer commits: both blocks stay. */
    before = in_use();
    __transaction_atomic {
        long *a = malloc(3000);
        a[0] = 3;
        __transaction_atomic {
            long *b = malloc(7000);
            b[0] = 4;
            inner_kept = b;
            if (b[0] == 5 && one)
                __transaction_cancel;
        }
        outer_block = a;
    }
    TH_FORGET_MEMORY();
    CHECK(outer_block[0] == 3 && inner_kept[0] == 4);
    CHECK(in_use() >= before + 10000);
    free(outer_block);
    free(inner_kept);

    /* Inner commits, outer cancels: both blocks are released. */
    before = in_use();
    for (int k = 0; k < 1000; k++) {
        __transaction_atomic {
            long *a = malloc(2000);
            a[0] = 5;
            g_outer = a;
            __transaction_atomic {
                long *b = malloc(6000);
                b[0] = 6;
                g_inner = b;
                if (b[0] == 7 && one)
                    __transaction_cancel;
            }
            if (one)
                __transaction_cancel;
        }
        TH_FORGET_MEMORY();
        CHECK(g_outer == NULL && g_inner == NULL);
    }
    CHECK(in_use() < before + 64 * 1024);
    return 0;
}

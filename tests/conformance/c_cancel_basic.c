/* __transaction_cancel basics: every write of the transaction is undone (globals, heap, a
 * struct, an array), code after the cancel does not run, control continues right after the
 * transaction, a committed transaction after a cancelled one works normally, and cancelling
 * 100000 times in a loop neither leaks memory nor disturbs the data.
 * Stores here are plain assignments; read-modify-write updates in cancelled transactions are
 * covered by c_cancel_rmw.c. */
// TMTEST: valgrind=yes
// TMTEST: valgrind-div=4
#include "harness.h"

#include <malloc.h>

#define TM_SAFE __attribute__((transaction_safe))
#define NOINLINE __attribute__((noinline))

static int g_int = 1;
static double g_dbl = 2.0;
static char g_str[32] = "unchanged";
static long g_arr[100];
static struct {
    int a;
    short b;
    char c;
} g_rec = { 10, 20, 'c' };
static volatile int runtime_one = 1;

static int after_cancel_ran; /* bumped by pure code, so a cancel cannot hide it */
TH_PURE static void mark_after_cancel(void) { after_cancel_ran++; }

TM_SAFE NOINLINE static void write_many(long *heap, int n, long v)
{
    g_int = (int)v;
    g_dbl = (double)v / 4;
    g_str[0] = 'X';
    g_str[9] = 'Y';
    for (int i = 0; i < 100; i++)
        g_arr[i] = v + i;
    g_rec.a = -1;
    g_rec.b = -2;
    g_rec.c = 'z';
    for (int i = 0; i < n; i++)
        heap[i] = v * i;
}

static void check_untouched(const long *heap, int n)
{
    CHECK_EQ(g_int, 1);
    CHECK(g_dbl == 2.0);
    CHECK(strcmp(g_str, "unchanged") == 0);
    for (int i = 0; i < 100; i++)
        CHECK_EQ(g_arr[i], 3 * i);
    CHECK(g_rec.a == 10 && g_rec.b == 20 && g_rec.c == 'c');
    for (int i = 0; i < n; i++)
        CHECK_EQ(heap[i], i + 1000);
}

int main(void)
{
    th_check_runtime();
    int one = runtime_one;
    const int n = 500;
    long *heap = malloc(n * sizeof *heap);
    CHECK(heap != NULL);
    for (int i = 0; i < n; i++)
        heap[i] = i + 1000;
    for (int i = 0; i < 100; i++)
        g_arr[i] = 3 * i;

    /* Cancel undoes everything; statements after the cancel never run. */
    int reached = 0;
    __transaction_atomic {
        write_many(heap, n, 77);
        if (one)
            __transaction_cancel;
        mark_after_cancel();
        g_int = 1234;
    }
    TH_FORGET_MEMORY();
    reached = 1;
    CHECK_EQ(reached, 1);
    CHECK_EQ(after_cancel_ran, 0);
    check_untouched(heap, n);

    /* Unconditional cancel at the end of the block. */
    __transaction_atomic {
        g_int = 5;
        g_str[3] = '!';
        __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    check_untouched(heap, n);

    /* A commit right after a cancel. */
    __transaction_atomic {
        write_many(heap, n, 9);
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(g_int, 9);
    CHECK(g_dbl == 2.25);
    CHECK(strcmp(g_str, "XnchangedY") == 0);
    CHECK_EQ(g_arr[99], 108);
    CHECK(g_rec.a == -1 && g_rec.b == -2 && g_rec.c == 'z');
    CHECK_EQ(heap[n - 1], 9L * (n - 1));

    /* Put the state back, then cancel 100000 times in a row. */
    __transaction_atomic {
        g_int = 1;
        g_dbl = 2.0;
        g_str[0] = 'u';
        g_str[9] = 0;
        for (int i = 0; i < 100; i++)
            g_arr[i] = 3 * i;
        g_rec.a = 10;
        g_rec.b = 20;
        g_rec.c = 'c';
        for (int i = 0; i < n; i++)
            heap[i] = i + 1000;
    }
    TH_FORGET_MEMORY();
    check_untouched(heap, n);

    struct mallinfo2 before = mallinfo2();
    long iters = th_iters(100000);
    for (long k = 0; k < iters; k++) {
        __transaction_atomic {
            g_int = (int)k;
            g_arr[k % 100] = -k;
            heap[k % n] = k;
            if (one)
                __transaction_cancel;
            mark_after_cancel();
        }
        TH_FORGET_MEMORY();
    }
    struct mallinfo2 after = mallinfo2();
    CHECK_EQ(after_cancel_ran, 0);
    check_untouched(heap, n);
    /* Allocated bytes may grow once (logs), but not per iteration. */
    CHECK(after.uordblks < before.uordblks + 256 * 1024);
    free(heap);
    return 0;
}

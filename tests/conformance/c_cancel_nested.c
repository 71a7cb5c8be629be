/* Cancel in nested transactions. A plain __transaction_cancel in a nested atomic transaction
 * undoes only that nested transaction (closed nesting): the outer one continues after the inner
 * block and commits its own writes. __transaction_cancel [[outer]] undoes the whole outermost
 * transaction, whether it is written lexically inside an inner block or in a
 * transaction_may_cancel_outer function. Code after a cancel never runs. */
// TMTEST: valgrind=yes
#include "harness.h"

#define NOINLINE __attribute__((noinline))

static int a, b, c, d;
static long arr[64];
static volatile int runtime_one = 1;

static int stray; /* counts code that runs after a cancel; pure, so not rolled back */
TH_PURE static void stray_code(void) { stray++; }

static void reset(void)
{
    a = b = c = d = 0;
    for (int i = 0; i < 64; i++)
        arr[i] = i;
}

__attribute__((transaction_may_cancel_outer)) NOINLINE static void cancel_everything(int when)
{
    c = 30;
    arr[5] = -5;
    if (when)
        __transaction_cancel [[outer]];
    c = 31;
}

int main(void)
{
    th_check_runtime();
    int one = runtime_one;
    int inner_seen = -1;

    /* Inner cancel undoes only the inner writes. */
    reset();
    __transaction_atomic {
        a = 1;
        arr[0] = 100;
        __transaction_atomic {
            b = 2;
            arr[0] = 200;
            arr[1] = 201;
            if (one)
                __transaction_cancel;
            stray_code();
        }
        inner_seen = arr[0];
        c = b + 3;
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(stray, 0);
    CHECK_EQ(inner_seen, 100);
    CHECK(a == 1 && b == 0 && c == 3);
    CHECK(arr[0] == 100 && arr[1] == 1);

    /* Three levels, the middle one cancels: it and the innermost are undone. */
    reset();
    __transaction_atomic {
        a = 1;
        __transaction_atomic {
            b = 2;
            __transaction_atomic {
                c = 3;
                arr[3] = 33;
            }
            if (c == 3 && one)
                __transaction_cancel;
            stray_code();
        }
        d = 4 + b + c;
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(stray, 0);
    CHECK(a == 1 && b == 0 && c == 0 && d == 4 && arr[3] == 3);

    /* Inner commit, then the outer transaction cancels: nothing survives. */
    reset();
    __transaction_atomic {
        a = 1;
        __transaction_atomic {
            b = 2;
        }
        if (one)
            __transaction_cancel;
        stray_code();
    }
    TH_FORGET_MEMORY();
    CHECK(a == 0 && b == 0);

    /* [[outer]] cancel from inside a nested block. */
    reset();
    __transaction_atomic [[outer]] {
        a = 1;
        arr[10] = 1000;
        __transaction_atomic {
            b = 2;
            if (one)
                __transaction_cancel [[outer]];
            stray_code();
        }
        stray_code();
        d = 9;
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(stray, 0);
    CHECK(a == 0 && b == 0 && d == 0 && arr[10] == 10);

    /* [[outer]] cancel from a transaction_may_cancel_outer function, called from a nested
     * transaction and directly. */
    reset();
    __transaction_atomic [[outer]] {
        a = 1;
        __transaction_atomic {
            b = 2;
            cancel_everything(one);
            stray_code();
        }
        stray_code();
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(stray, 0);
    CHECK(a == 0 && b == 0 && c == 0 && arr[5] == 5);

    reset();
    __transaction_atomic [[outer]] {
        a = 1;
        cancel_everything(0); /* does not cancel */
        d = c + 1;
    }
    TH_FORGET_MEMORY();
    CHECK(a == 1 && c == 31 && d == 32 && arr[5] == -5);

    /* Inner cancels repeated in a loop inside one outer transaction. */
    reset();
    __transaction_atomic {
        for (int i = 0; i < 64; i++) {
            __transaction_atomic {
                arr[i] = -1;
                a = i;
                if (i & one)
                    __transaction_cancel;
            }
        }
    }
    TH_FORGET_MEMORY();
    for (int i = 0; i < 64; i++)
        CHECK_EQ(arr[i], (i & 1) ? i : -1);
    CHECK_EQ(a, 62);
    return 0;
}

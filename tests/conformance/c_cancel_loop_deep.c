/* Cancels (GCC emits _ITM_abortTransaction) in the middle of loops and after many nesting
 * levels. (1) A loop inside a transaction writes element after element and cancels at step k:
 * nothing of it stays, for every k. (2) Nested atomic transactions 40 levels deep (recursion in a
 * transaction_may_cancel_outer function); the deepest level cancels the outermost transaction
 * with [[outer]]: nothing stays, and no code after the cancel runs at any level. Closed-nested
 * cancels at depth: c_cancel_closed_deep.c. */
#include "harness.h"

#define NOINLINE __attribute__((noinline))
#define DEPTH 40

static volatile int runtime_one = 1;

static long vec[1000];
static int level_mark[DEPTH + 1];
static int after_cancel; /* bumped by pure code: a cancel cannot hide it */
TH_PURE static void stray_code(void) { after_cancel++; }

__attribute__((transaction_may_cancel_outer)) NOINLINE static void level_outer(int depth,
                                                                              int do_cancel)
{
    level_mark[depth] = 1;
    vec[depth] = -1;
    if (depth <= 0) {
        if (do_cancel)
            __transaction_cancel [[outer]];
        return;
    }
    __transaction_atomic {
        level_outer(depth - 1, do_cancel);
    }
    stray_code();
}

static void reset(void)
{
    for (int i = 0; i < 1000; i++)
        vec[i] = i * 3;
    for (int i = 0; i <= DEPTH; i++)
        level_mark[i] = 0;
}

int main(void)
{
    th_check_runtime();
    int one = runtime_one;

    /* (1) Cancel at step k of a loop. */
    reset();
    for (int k = 0; k < 1000; k += 37) {
        int steps = 0;
        __transaction_atomic {
            for (int i = 0; i < 1000; i++) {
                vec[i] = -1 - 3 * i;
                steps = i;
                if (i == k * one)
                    __transaction_cancel;
            }
            stray_code();
        }
        TH_FORGET_MEMORY();
        CHECK_EQ(steps, 0); /* a local live across the transaction is restored too */
        for (int i = 0; i < 1000; i++)
            CHECK_EQ(vec[i], i * 3);
    }
    CHECK_EQ(after_cancel, 0);

    /* (2) [[outer]] cancel from the deepest level. */
    for (int round = 0; round < 100; round++) {
        reset();
        __transaction_atomic [[outer]] {
            vec[999] = 1;
            level_outer(DEPTH, one);
            stray_code();
        }
        TH_FORGET_MEMORY();
        CHECK_EQ(vec[999], 999 * 3);
        for (int i = 0; i <= DEPTH; i++) {
            CHECK_EQ(level_mark[i], 0);
            CHECK_EQ(vec[i], i * 3);
        }
    }
    CHECK_EQ(after_cancel, 0);

    /* The same chain without the cancel commits every level, and each level's code after its
     * nested block runs once. */
    reset();
    __transaction_atomic [[outer]] {
        level_outer(DEPTH, 0);
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(after_cancel, DEPTH);
    for (int i = 0; i <= DEPTH; i++)
        CHECK(level_mark[i] == 1 && vec[i] == -1);
    return 0;
}

/* Closed nesting at depth: atomic transactions nested 40 levels deep by recursion in a
 * transaction_safe function, each with its own __transaction_cancel. When level t cancels, its
 * writes and those of all levels below it (already committed into it) are undone; the levels
 * above continue after their nested block and commit. The outermost transaction has no cancel
 * of its own, so GCC marks it pr_hasNoAbort.
 * libitm serialirr aborts the process here (abort() in _ITM_abortTransaction): it starts the
 * outer transaction serial-irrevocable because of pr_hasNoAbort and then cannot roll back the
 * nested one. */
// TMTEST: libitm-methods=gl_wt,ml_wt
#include "harness.h"

#define TM_SAFE __attribute__((transaction_safe))
#define NOINLINE __attribute__((noinline))
#define DEPTH 40

static long vec[DEPTH + 1];
static int mark[DEPTH + 1];
static int top_after; /* written by the outermost transaction after the recursion */

/* Writes this level's values, recurses, cancels if this is the target, else finishes. */
TM_SAFE NOINLINE static void level(int depth, int target)
{
    __transaction_atomic {
        mark[depth] = depth + 1;
        vec[depth] = -depth - 1;
        if (depth > 0)
            level(depth - 1, target);
        if (depth == target)
            __transaction_cancel;
        mark[depth] = depth + 1001;
    }
}

static void reset(void)
{
    for (int i = 0; i <= DEPTH; i++) {
        vec[i] = i * 3;
        mark[i] = 0;
    }
    top_after = 0;
}

int main(void)
{
    th_check_runtime();
    for (int t = -1; t <= DEPTH; t++) {
        reset();
        __transaction_atomic {
            level(DEPTH, t);
            top_after = mark[DEPTH] + 1;
        }
        TH_FORGET_MEMORY();
        for (int i = 0; i <= DEPTH; i++) {
            if (i <= t) {
                CHECK_EQ(mark[i], 0);
                CHECK_EQ(vec[i], i * 3);
            } else {
                CHECK_EQ(mark[i], i + 1001);
                CHECK_EQ(vec[i], -i - 1);
            }
        }
        CHECK_EQ(top_after, t == DEPTH ? 1 : DEPTH + 1002);
    }

    /* Many rounds with the cancel near the bottom (the deepest checkpoints get reused). */
    for (int round = 0; round < 2000; round++) {
        int t = round % 4;
        reset();
        __transaction_atomic {
            level(10, t);
        }
        TH_FORGET_MEMORY();
        for (int i = 0; i <= 10; i++)
            CHECK_EQ(mark[i], i <= t ? 0 : i + 1001);
    }
    return 0;
}

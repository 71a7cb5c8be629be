/* The floating-point control words (MXCSR, x87 control word) are callee-saved in the SysV ABI,
 * so a cancelled transaction returns with the rounding mode it started with, and a committed one
 * keeps what its body set. tmkit stores the two words only for attempts that can roll back
 * (core/begin.c; the biased and serial fast paths skip it): a cancel must restore the mode of
 * *this* transaction's start, not a stale one left by an earlier transaction, which the
 * sequence below would expose (it cancels in FE_DOWNWARD first, then in FE_TONEAREST).
 * The body changes the mode through a transaction_pure function (no instrumentation, no switch
 * to irrevocable, so the transaction can still cancel). */
// TMTEST: libs=-lm
// TMTEST: libitm=skip:a cancel does not restore the rounding mode (libitm saves no floating-point control word)
#include "harness.h"

#include <fenv.h>
#include <xmmintrin.h>

static volatile int runtime_one = 1;
static int g;

TH_PURE static void set_mode(int mode) { fesetround(mode); }

/* The rounding mode as both units see it; -1 if they disagree. */
static int mode_now(void)
{
    unsigned short cw;
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    unsigned sse = (_mm_getcsr() >> 13) & 3, x87 = (cw >> 10) & 3;
    static const int modes[4] = {FE_TONEAREST, FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};
    return sse == x87 ? modes[sse] : -1;
}

/* A transaction that changes the mode, writes, and cancels: both undone. */
static void cancel_in(int start, int inside)
{
    CHECK_EQ(fesetround(start), 0);
    int one = runtime_one;
    g = 1;
    __transaction_atomic {
        set_mode(inside);
        g = 2;
        if (one)
            __transaction_cancel;
        g = 3;
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(g, 1);
    CHECK_EQ(mode_now(), start);
}

int main(void)
{
    th_check_runtime();
    CHECK_EQ(mode_now(), FE_TONEAREST);

    cancel_in(FE_DOWNWARD, FE_UPWARD);
    cancel_in(FE_TONEAREST, FE_UPWARD);
    cancel_in(FE_TOWARDZERO, FE_TONEAREST);

    /* Committed transactions that cannot cancel (the biased or serial fast path with one
     * thread) keep the body's mode, and a cancel after them restores the right one. */
    for (int i = 0; i < 1000; i++) {
        CHECK_EQ(fesetround(FE_TONEAREST), 0);
        __transaction_atomic {
            set_mode(FE_DOWNWARD);
            g = i;
        }
        TH_FORGET_MEMORY();
        CHECK_EQ(mode_now(), FE_DOWNWARD);
        CHECK_EQ(g, i);
        cancel_in(FE_UPWARD, FE_TOWARDZERO);
    }

    /* The mode also survives a cancel that follows many committed transactions in one mode. */
    CHECK_EQ(fesetround(FE_TONEAREST), 0);
    cancel_in(FE_TONEAREST, FE_DOWNWARD);
    return 0;
}

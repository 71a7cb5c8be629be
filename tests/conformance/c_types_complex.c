/* Compiler-emitted barriers for _Complex float, _Complex double and _Complex long double
 * (GCC moves them whole or part by part depending on the optimisation level). Values written
 * inside a transaction read back inside it, are visible after commit, and a cancel restores
 * both the real and the imaginary part of every variable. */
#include "harness.h"

#define TM_SAFE __attribute__((transaction_safe))
#define NOINLINE __attribute__((noinline))

static _Complex float g_cf;
static _Complex double g_cd;
static _Complex long double g_ce;
static _Complex double g_arr[16];

static int inside_bad;
TH_PURE static void note_inside(int ok) { if (!ok) inside_bad++; }

static _Complex float mk_cf(int k) { return (1.5f + (float)k) + (0.25f - (float)k) * 1.0fi; }
static _Complex double mk_cd(int k) { return (-3.0 + k / 8.0) + (7.0 + k) * 1.0i; }
static _Complex long double mk_ce(int k)
{
    return (1.0L / 3.0L + (long double)k) + (-(long double)k / 9.0L) * 1.0Li;
}

TM_SAFE NOINLINE static void store_all(_Complex float cf, _Complex double cd,
                                       _Complex long double ce)
{
    g_cf = cf;
    g_cd = cd;
    g_ce = ce;
}

TM_SAFE NOINLINE static void load_all(_Complex float *cf, _Complex double *cd,
                                      _Complex long double *ce)
{
    *cf = g_cf;
    *cd = g_cd;
    *ce = g_ce;
}

static void check_globals(int k)
{
    CHECK(g_cf == mk_cf(k));
    CHECK(g_cd == mk_cd(k));
    CHECK(g_ce == mk_ce(k));
}

int main(void)
{
    th_check_runtime();
    _Complex float cf = 0;
    _Complex double cd = 0;
    _Complex long double ce = 0;

    store_all(mk_cf(0), mk_cd(0), mk_ce(0));
    for (int i = 0; i < 16; i++)
        g_arr[i] = mk_cd(i);

    __transaction_atomic {
        store_all(mk_cf(1), mk_cd(1), mk_ce(1));
        load_all(&cf, &cd, &ce);
    }
    TH_FORGET_MEMORY();
    CHECK(cf == mk_cf(1));
    CHECK(cd == mk_cd(1));
    CHECK(ce == mk_ce(1));
    check_globals(1);

    /* Inline arithmetic on the parts. */
    __transaction_atomic {
        g_cf = g_cf * 2.0f;
        g_cd = g_cd + 1.0i;
        __real__ g_ce = __imag__ g_ce;
        __imag__ g_ce = 5.0L;
    }
    TH_FORGET_MEMORY();
    CHECK(g_cf == mk_cf(1) * 2.0f);
    CHECK(g_cd == mk_cd(1) + 1.0i);
    CHECK(__real__ g_ce == __imag__ mk_ce(1));
    CHECK(__imag__ g_ce == 5.0L);

    /* Cancel restores whole values and single parts. */
    store_all(mk_cf(2), mk_cd(2), mk_ce(2));
    __transaction_atomic {
        store_all(mk_cf(3), mk_cd(3), mk_ce(3));
        load_all(&cf, &cd, &ce);
        note_inside(cf == mk_cf(3) && cd == mk_cd(3) && ce == mk_ce(3));
        __imag__ g_cf = -1.0f;
        __real__ g_cd = -1.0;
        g_ce = g_ce * g_ce;
        for (int i = 0; i < 16; i++)
            g_arr[i] = g_arr[15 - i] * 1.0i;
        __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(inside_bad, 0);
    check_globals(2);
    for (int i = 0; i < 16; i++)
        CHECK(g_arr[i] == mk_cd(i));

    /* Committed array rotation by complex multiplication. */
    __transaction_atomic {
        for (int i = 0; i < 16; i++)
            g_arr[i] = g_arr[i] * 1.0i;
    }
    TH_FORGET_MEMORY();
    for (int i = 0; i < 16; i++) {
        CHECK(__real__ g_arr[i] == -__imag__ mk_cd(i));
        CHECK(__imag__ g_arr[i] == __real__ mk_cd(i));
    }
    return 0;
}

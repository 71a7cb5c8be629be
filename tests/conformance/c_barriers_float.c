/* Direct calls to every floating-point load/store barrier:
 * _ITM_{R,RaR,RaW,RfW,W,WaR,WaW}{F,D,E,CF,CD,CE} on globals and on heap memory. Inside a
 * transaction reads return the transaction's own latest write (exact values, including
 * negative zero, infinities and subnormals); committed writes are visible afterwards; a cancel
 * restores the old value. */
#include "harness.h"

#include <float.h>
#include <math.h>

static int touch;   /* committed transactions count here */
static int spoiled; /* cancelled transactions set this; the cancel must undo it */

static int inside_bad;
TH_PURE static void note(int ok, int line)
{
    if (!ok) {
        fprintf(stderr, "inside-transaction check at line %d failed\n", line);
        inside_bad++;
    }
}
#define NOTE(c) note((c), __LINE__)

/* Bitwise equality, so that -0.0 and 0.0 differ. long double has 6 padding bytes after its 10
 * value bytes: compare only those. */
TH_PURE static int same_bytes(const void *a, const void *b, size_t n)
{
    return memcmp(a, b, n) == 0;
}
TH_PURE static int eq_f(float x, float y) { return same_bytes(&x, &y, sizeof x); }
TH_PURE static int eq_d(double x, double y) { return same_bytes(&x, &y, sizeof x); }
TH_PURE static int eq_e(long double x, long double y) { return same_bytes(&x, &y, 10); }
TH_PURE static int eq_cf(_Complex float x, _Complex float y)
{
    return same_bytes(&x, &y, sizeof x);
}
TH_PURE static int eq_cd(_Complex double x, _Complex double y)
{
    return same_bytes(&x, &y, sizeof x);
}
TH_PURE static int eq_ce(_Complex long double x, _Complex long double y)
{
    return eq_e(__real__ x, __real__ y) && eq_e(__imag__ x, __imag__ y);
}

#define TEST_TYPE(T, S, EQ, p, a, b, c)    \
    do {                                   \
        T *p_ = (p);                       \
        T a_ = (a), b_ = (b), c_ = (c);    \
        *p_ = a_;                          \
        __transaction_atomic {             \
            touch++;                       \
            NOTE(EQ(_ITM_R##S(p_), a_));   \
            NOTE(EQ(_ITM_RaR##S(p_), a_)); \
            _ITM_WaR##S(p_, b_);           \
            NOTE(EQ(_ITM_RaW##S(p_), b_)); \
            _ITM_WaW##S(p_, c_);           \
            NOTE(EQ(_ITM_RaW##S(p_), c_)); \
            NOTE(EQ(_ITM_RaR##S(p_), c_)); \
        }                                  \
        TH_FORGET_MEMORY();                \
        CHECK(EQ(*p_, c_));                \
        __transaction_atomic {             \
            touch++;                       \
            NOTE(EQ(_ITM_RfW##S(p_), c_)); \
            _ITM_WaR##S(p_, b_);           \
            NOTE(EQ(_ITM_RaW##S(p_), b_)); \
        }                                  \
        TH_FORGET_MEMORY();                \
        CHECK(EQ(*p_, b_));                \
        __transaction_atomic {             \
            touch++;                       \
            _ITM_W##S(p_, a_);             \
            NOTE(EQ(_ITM_RaW##S(p_), a_)); \
            NOTE(EQ(_ITM_R##S(p_), a_));   \
        }                                  \
        TH_FORGET_MEMORY();                \
        CHECK(EQ(*p_, a_));                \
        __transaction_atomic {             \
            spoiled = 1;                   \
            _ITM_W##S(p_, b_);             \
            NOTE(EQ(_ITM_RaW##S(p_), b_)); \
            _ITM_WaW##S(p_, c_);           \
            NOTE(EQ(_ITM_RaW##S(p_), c_)); \
            __transaction_cancel;          \
        }                                  \
        TH_FORGET_MEMORY();                \
        CHECK(EQ(*p_, a_));                \
        __transaction_atomic {             \
            spoiled = 1;                   \
            NOTE(EQ(_ITM_RfW##S(p_), a_)); \
            _ITM_WaR##S(p_, c_);           \
            NOTE(EQ(_ITM_RaW##S(p_), c_)); \
            __transaction_cancel;          \
        }                                  \
        TH_FORGET_MEMORY();                \
        CHECK(EQ(*p_, a_));                \
        __transaction_atomic {             \
            spoiled = 1;                   \
            NOTE(EQ(_ITM_R##S(p_), a_));   \
            _ITM_WaR##S(p_, b_);           \
            NOTE(EQ(_ITM_RaW##S(p_), b_)); \
            __transaction_cancel;          \
        }                                  \
        TH_FORGET_MEMORY();                \
        CHECK(EQ(*p_, a_));                \
        CHECK_EQ(spoiled, 0);              \
        CHECK_EQ(inside_bad, 0);           \
    } while (0)

static float gf;
static double gd;
static long double ge;
static _Complex float gcf;
static _Complex double gcd;
static _Complex long double gce;

struct heap_vals {
    char pad;
    float f;
    double d;
    long double e;
    _Complex float cf;
    _Complex double cd;
    _Complex long double ce;
};

int main(void)
{
    th_check_runtime();
    int rounds = 0;

    TEST_TYPE(float, F, eq_f, &gf, 1.5f, -0.0f, FLT_MIN / 4);
    TEST_TYPE(double, D, eq_d, &gd, -1e300, 0.0, 1.0 / 3.0);
    TEST_TYPE(long double, E, eq_e, &ge, 1.0L / 3.0L, -0.0L, LDBL_MAX);
    TEST_TYPE(_Complex float, CF, eq_cf, &gcf, 1.0f + 2.0fi, -3.5f - 0.0fi, INFINITY * 1.0fi);
    TEST_TYPE(_Complex double, CD, eq_cd, &gcd, 1e-310 + 2.0i, -0.0 - 7.25i, 1.0 / 7.0 + 1e100i);
    TEST_TYPE(_Complex long double, CE, eq_ce, &gce, 1.0L / 3.0L + 2.0Li, -0.0L - 0.5Li,
              LDBL_MIN + LDBL_MAX * 1.0Li);
    rounds += 6;

    struct heap_vals *h = malloc(sizeof *h);
    CHECK(h != NULL);
    TEST_TYPE(float, F, eq_f, &h->f, -2.0f, 3.0f, 4.0f);
    TEST_TYPE(double, D, eq_d, &h->d, -2.0, 3.0, 4.0);
    TEST_TYPE(long double, E, eq_e, &h->e, -2.0L, 3.0L, 4.0L);
    TEST_TYPE(_Complex float, CF, eq_cf, &h->cf, -2.0f, 3.0fi, 4.0f + 4.0fi);
    TEST_TYPE(_Complex double, CD, eq_cd, &h->cd, -2.0, 3.0i, 4.0 + 4.0i);
    TEST_TYPE(_Complex long double, CE, eq_ce, &h->ce, -2.0L, 3.0Li, 4.0L + 4.0Li);
    rounds += 6;
    free(h);

    CHECK_EQ(touch, rounds * 3);
    return 0;
}

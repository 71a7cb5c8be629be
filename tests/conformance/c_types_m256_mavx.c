/* __m256 accesses in transactions of a file built with -mavx: GCC then emits the M256 barriers
 * itself (_ITM_RM256/_ITM_WM256 at -O0, _ITM_RfWM256/_ITM_WaWM256 and friends at -O2; checked
 * with objdump -d when this test was written), passing the values in ymm registers. A runtime
 * that moves only 16 bytes, or uses the non-AVX calling convention, corrupts the upper lanes.
 * The program exits 0 at once on a CPU without AVX (only the runtime check runs before). */
// TMTEST: cflags=-mavx
#include "harness.h"

#define TM_SAFE __attribute__((transaction_safe))
#define NOINLINE __attribute__((noinline))

static __m256 g[8];
static __m256d gd[2];

static int inside_bad;
TH_PURE static void note_inside(int ok) { if (!ok) inside_bad++; }

static __m256 mk(int k)
{
    return _mm256_set_ps(k + 0.5f, -k, 3.0f * k, 11.0f, k - 8.0f, 0.25f * k, 1000.0f - k, k * k);
}
TH_PURE static int eq(__m256 a, __m256 b)
{
    float x[8], y[8];
    _mm256_storeu_ps(x, a);
    _mm256_storeu_ps(y, b);
    for (int i = 0; i < 8; i++)
        if (x[i] != y[i])
            return 0;
    return 1;
}

TM_SAFE NOINLINE static __m256 load(const __m256 *p) { return *p; }
TM_SAFE NOINLINE static void store(__m256 *p, __m256 v) { *p = v; }

NOINLINE static void run(void)
{
    for (int i = 0; i < 8; i++)
        g[i] = mk(i);
    gd[0] = _mm256_set_pd(1.0, 2.0, 3.0, 4.0);
    gd[1] = _mm256_set1_pd(-1.0);

    __m256 r = _mm256_setzero_ps();
    __transaction_atomic {
        store(&g[0], mk(40));
        r = load(&g[0]);
        g[1] = _mm256_add_ps(g[1], g[2]);
        g[3] = g[4];
        gd[1] = _mm256_mul_pd(gd[0], gd[1]);
    }
    TH_FORGET_MEMORY();
    CHECK(eq(r, mk(40)));
    CHECK(eq(g[0], mk(40)));
    CHECK(eq(g[1], _mm256_add_ps(mk(1), mk(2))));
    CHECK(eq(g[3], mk(4)));
    double d[4];
    _mm256_storeu_pd(d, gd[1]);
    CHECK(d[0] == -4.0 && d[1] == -3.0 && d[2] == -2.0 && d[3] == -1.0);

    /* Cancel restores all 32 bytes of each value. */
    __transaction_atomic {
        for (int i = 0; i < 8; i++)
            store(&g[i], mk(100 + i));
        g[7] = _mm256_sub_ps(g[7], g[6]);
        note_inside(eq(load(&g[5]), mk(105)) && eq(g[7], _mm256_sub_ps(mk(107), mk(106))));
        gd[0] = gd[1];
        __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(inside_bad, 0);
    CHECK(eq(g[0], mk(40)));
    CHECK(eq(g[3], mk(4)));
    for (int i = 4; i < 8; i++)
        CHECK(eq(g[i], mk(i)));
    _mm256_storeu_pd(d, gd[0]);
    CHECK(d[0] == 4.0 && d[1] == 3.0 && d[2] == 2.0 && d[3] == 1.0);

    /* Repeated commits, each reading the previous value. */
    for (int k = 0; k < 500; k++) {
        __transaction_atomic { g[2] = _mm256_add_ps(g[2], _mm256_set1_ps(1.0f)); }
        TH_FORGET_MEMORY();
    }
    CHECK(eq(g[2], _mm256_add_ps(mk(2), _mm256_set1_ps(500.0f))));
}

int main(void)
{
    th_check_runtime();
    if (!__builtin_cpu_supports("avx")) {
        printf("no AVX: skipped\n");
        return 0;
    }
    run();
    return 0;
}

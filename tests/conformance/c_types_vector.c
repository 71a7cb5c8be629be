/* Compiler-emitted barriers for the x86 vector types __m64, __m128 and __m256. The __m256 part
 * lives in functions compiled with target("avx") and runs only when the CPU has AVX; GCC then
 * moves __m256 values with _ITM_memcpy* (it emits _ITM_RM256/_ITM_WM256 only when the whole
 * file is built with -mavx, see c_types_m256_mavx.c). Checks read-back inside the transaction,
 * visibility after commit, and that a cancel restores every lane. */
#include "harness.h"

#define TM_SAFE __attribute__((transaction_safe))
#define NOINLINE __attribute__((noinline))

static __m64 g64[4];
static __m128 g128[4];
static __m256 g256[4];

static int inside_bad;
TH_PURE static void note_inside(int ok) { if (!ok) inside_bad++; }

static __m64 mk64(int k) { return (__m64)(0x0102030405060708ull * (uint64_t)(k + 1)); }
static __m128 mk128(int k) { return _mm_set_ps(k + 0.5f, k - 1.0f, k * 3.0f, -k - 2.0f); }
TH_PURE static int eq64(__m64 a, __m64 b) { return (uint64_t)a == (uint64_t)b; }
TH_PURE static int eq128(__m128 a, __m128 b)
{
    float x[4], y[4];
    _mm_storeu_ps(x, a);
    _mm_storeu_ps(y, b);
    return memcmp(x, y, sizeof x) == 0;
}

TM_SAFE NOINLINE static void copy64(__m64 *dst, const __m64 *src) { *dst = *src; }
TM_SAFE NOINLINE static void copy128(__m128 *dst, const __m128 *src) { *dst = *src; }

static void test_m64_m128(void)
{
    __m64 r64 = mk64(99);
    __m128 r128 = mk128(99);
    for (int i = 0; i < 4; i++) {
        g64[i] = mk64(i);
        g128[i] = mk128(i);
    }
    __transaction_atomic {
        g64[0] = mk64(10);
        g128[0] = mk128(10);
        copy64(&r64, &g64[0]);
        copy128(&r128, &g128[0]);
        copy64(&g64[1], &g64[2]);
        copy128(&g128[1], &g128[2]);
    }
    TH_FORGET_MEMORY();
    CHECK(eq64(r64, mk64(10)) && eq64(g64[0], mk64(10)) && eq64(g64[1], mk64(2)));
    CHECK(eq128(r128, mk128(10)) && eq128(g128[0], mk128(10)) && eq128(g128[1], mk128(2)));

    /* Arithmetic inside the transaction (MMX add, then leave MMX state). */
    __transaction_atomic {
        g64[3] = _mm_add_pi32(g64[3], g64[3]);
        g128[3] = _mm_mul_ps(g128[3], _mm_set1_ps(2.0f));
    }
    TH_FORGET_MEMORY();
    _mm_empty();
    CHECK(eq64(g64[3], _mm_add_pi32(mk64(3), mk64(3))));
    _mm_empty();
    CHECK(eq128(g128[3], _mm_mul_ps(mk128(3), _mm_set1_ps(2.0f))));

    /* Cancel restores. */
    __transaction_atomic {
        for (int i = 0; i < 4; i++) {
            g64[i] = mk64(50 + i);
            g128[i] = mk128(50 + i);
        }
        copy64(&r64, &g64[2]);
        copy128(&r128, &g128[2]);
        note_inside(eq64(r64, mk64(52)) && eq128(r128, mk128(52)));
        __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(inside_bad, 0);
    CHECK(eq64(g64[0], mk64(10)) && eq64(g64[1], mk64(2)) && eq64(g64[2], mk64(2)));
    CHECK(eq128(g128[0], mk128(10)) && eq128(g128[1], mk128(2)) && eq128(g128[2], mk128(2)));
}

#define AVX __attribute__((target("avx")))

AVX static __m256 mk256(int k)
{
    return _mm256_set_ps(k, k + 1.5f, -k, k * 2.0f, 7.0f, k - 3.0f, 0.125f * k, 100.0f + k);
}
AVX TH_PURE static int eq256(__m256 a, __m256 b)
{
    float x[8], y[8];
    _mm256_storeu_ps(x, a);
    _mm256_storeu_ps(y, b);
    return memcmp(x, y, sizeof x) == 0;
}
AVX TM_SAFE NOINLINE static void copy256(__m256 *dst, const __m256 *src) { *dst = *src; }

AVX NOINLINE static void test_m256(void)
{
    __m256 r = mk256(99);
    for (int i = 0; i < 4; i++)
        g256[i] = mk256(i);
    __transaction_atomic {
        g256[0] = mk256(20);
        copy256(&r, &g256[0]);
        copy256(&g256[1], &g256[3]);
        g256[2] = _mm256_add_ps(g256[2], g256[2]);
    }
    TH_FORGET_MEMORY();
    CHECK(eq256(r, mk256(20)));
    CHECK(eq256(g256[0], mk256(20)));
    CHECK(eq256(g256[1], mk256(3)));
    CHECK(eq256(g256[2], _mm256_add_ps(mk256(2), mk256(2))));
    __transaction_atomic {
        for (int i = 0; i < 4; i++)
            g256[i] = mk256(70 + i);
        copy256(&r, &g256[1]);
        note_inside(eq256(r, mk256(71)));
        __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(inside_bad, 0);
    CHECK(eq256(g256[0], mk256(20)));
    CHECK(eq256(g256[1], mk256(3)));
    CHECK(eq256(g256[3], mk256(3)));
}

int main(void)
{
    th_check_runtime();
    test_m64_m128();
    if (__builtin_cpu_supports("avx"))
        test_m256();
    else
        printf("no AVX: __m256 part skipped\n");
    return 0;
}

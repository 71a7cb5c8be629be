/* Direct calls to every vector load/store barrier: _ITM_{R,RaR,RaW,RfW,W,WaR,WaW}{M64,M128,M256}
 * on aligned globals and on heap memory. The M256 barriers take and return __m256 in ymm
 * registers, so they are called only from functions compiled with target("avx"), and only when
 * the CPU has AVX. Inside a transaction reads return the transaction's own latest write (all
 * lanes); committed writes are visible afterwards; a cancel restores the old value. */
#include "harness.h"

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

#define AVX __attribute__((target("avx")))

TH_PURE static int eq_m64(__m64 x, __m64 y) { return memcmp(&x, &y, sizeof x) == 0; }
TH_PURE static int eq_m128(__m128 x, __m128 y) { return memcmp(&x, &y, sizeof x) == 0; }
AVX TH_PURE static int eq_m256(__m256 x, __m256 y) { return memcmp(&x, &y, sizeof x) == 0; }

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

static __m64 g64;
static __m128 g128;
static __m256 g256;

static __m64 v64(int k)
{
    return (__m64)(0x8877665544332211ull + 0x0101010101010101ull * (uint64_t)k);
}
static __m128 v128(int k) { return _mm_set_ps(k, -k - 0.5f, 1e30f * k, 1.0f / (k + 3)); }
AVX static __m256 v256(int k)
{
    return _mm256_castpd_ps(_mm256_set_pd(k + 0.25, -1e300 * k, 1.0 / (k + 7), 1234567.0 - k));
}

struct heap_vecs {
    __m64 a;
    __m128 b;
    __m256 c;
};

AVX __attribute__((noinline)) static int test_m256(struct heap_vecs *h)
{
    TEST_TYPE(__m256, M256, eq_m256, &g256, v256(1), v256(2), v256(3));
    TEST_TYPE(__m256, M256, eq_m256, &h->c, v256(4), v256(5), v256(6));
    return 2;
}

int main(void)
{
    th_check_runtime();
    int rounds = 0;
    struct heap_vecs *h = aligned_alloc(32, sizeof *h);
    CHECK(h != NULL);

    TEST_TYPE(__m64, M64, eq_m64, &g64, v64(1), v64(2), v64(3));
    TEST_TYPE(__m64, M64, eq_m64, &h->a, v64(4), v64(5), v64(6));
    TEST_TYPE(__m128, M128, eq_m128, &g128, v128(1), v128(2), v128(3));
    TEST_TYPE(__m128, M128, eq_m128, &h->b, v128(4), v128(5), v128(6));
    rounds += 4;
    if (__builtin_cpu_supports("avx"))
        rounds += test_m256(h);
    else
        printf("no AVX: M256 barriers skipped\n");
    free(h);
    CHECK_EQ(touch, rounds * 3);
    return 0;
}

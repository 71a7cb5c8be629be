/* Compiler-emitted load/store barriers for the scalar types: uint8/16/32/64, float, double and
 * long double. Values written inside a transaction must read back inside it (read-after-write),
 * be visible after commit, and __transaction_cancel must restore every old value. */
#include "harness.h"

#define TM_SAFE __attribute__((transaction_safe))
#define NOINLINE __attribute__((noinline))

struct vals {
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    float f;
    double d;
    long double e;
};

static uint8_t g_u8;
static uint16_t g_u16;
static uint32_t g_u32;
static uint64_t g_u64;
static float g_f;
static double g_d;
static long double g_e;

/* Results recorded from inside a transaction by a pure function: not rolled back by a cancel. */
static int inside_bad;
TH_PURE static void note_inside(int ok) { if (!ok) inside_bad++; }

static void make_vals(struct vals *v, int k)
{
    v->u8 = (uint8_t)(0xA5 ^ (k * 37));
    v->u16 = (uint16_t)(0xBEEF ^ (k * 1237));
    v->u32 = 0xDEADBEEFu ^ (uint32_t)(k * 0x01010101u);
    v->u64 = 0x0123456789ABCDEFull ^ ((uint64_t)k * 0x1111111111111111ull);
    v->f = 1.25f + (float)k / 3.0f;
    v->d = -2.5 + (double)k / 7.0;
    v->e = 3.0L + (long double)k / 11.0L;
}

TM_SAFE static int vals_equal(const struct vals *a, const struct vals *b)
{
    return a->u8 == b->u8 && a->u16 == b->u16 && a->u32 == b->u32 && a->u64 == b->u64 &&
           a->f == b->f && a->d == b->d && a->e == b->e;
}

TM_SAFE NOINLINE static void store_globals(const struct vals *v)
{
    g_u8 = v->u8;
    g_u16 = v->u16;
    g_u32 = v->u32;
    g_u64 = v->u64;
    g_f = v->f;
    g_d = v->d;
    g_e = v->e;
}

TM_SAFE NOINLINE static void load_globals(struct vals *v)
{
    v->u8 = g_u8;
    v->u16 = g_u16;
    v->u32 = g_u32;
    v->u64 = g_u64;
    v->f = g_f;
    v->d = g_d;
    v->e = g_e;
}

static void check_globals(const struct vals *v)
{
    CHECK_EQ(g_u8, v->u8);
    CHECK_EQ(g_u16, v->u16);
    CHECK_EQ(g_u32, v->u32);
    CHECK(g_u64 == v->u64);
    CHECK(g_f == v->f);
    CHECK(g_d == v->d);
    CHECK(g_e == v->e);
}

int main(void)
{
    th_check_runtime();
    struct vals v0, v1, v2, got;

    make_vals(&v0, 0);
    make_vals(&v1, 1);
    make_vals(&v2, 2);
    store_globals(&v0);
    check_globals(&v0);

    /* Write through a helper, read back inside the same transaction. */
    memset(&got, 0, sizeof got);
    __transaction_atomic {
        store_globals(&v1);
        load_globals(&got);
    }
    TH_FORGET_MEMORY();
    CHECK(vals_equal(&got, &v1));
    check_globals(&v1);

    /* Inline accesses in the transaction body: read-modify-write of every type. */
    __transaction_atomic {
        g_u8 += 1;
        g_u16 += 2;
        g_u32 += 3;
        g_u64 += 4;
        g_f += 0.5f;
        g_d *= 2.0;
        g_e -= 1.5L;
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(g_u8, (uint8_t)(v1.u8 + 1));
    CHECK_EQ(g_u16, (uint16_t)(v1.u16 + 2));
    CHECK_EQ(g_u32, v1.u32 + 3);
    CHECK(g_u64 == v1.u64 + 4);
    CHECK(g_f == v1.f + 0.5f);
    CHECK(g_d == v1.d * 2.0);
    CHECK(g_e == v1.e - 1.5L);

    /* Cancel: every store is undone, even after several overwrites of the same location. */
    store_globals(&v0);
    __transaction_atomic {
        store_globals(&v1);
        store_globals(&v2);
        load_globals(&got);
        note_inside(vals_equal(&got, &v2));
        g_u8 ^= 0xFF;
        g_e = g_e * 4.0L;
        __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(inside_bad, 0);
    check_globals(&v0);

    /* Cancel after inline writes only. */
    __transaction_atomic {
        g_u8 = 7;
        g_u16 = 7;
        g_u32 = 7;
        g_u64 = 7;
        g_f = 7.0f;
        g_d = 7.0;
        g_e = 7.0L;
        note_inside(g_u8 == 7 && g_u16 == 7 && g_u32 == 7 && g_u64 == 7 && g_f == 7.0f &&
                    g_d == 7.0 && g_e == 7.0L);
        __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(inside_bad, 0);
    check_globals(&v0);

    /* Many commits in a row: the last one wins, each one is visible to the next. */
    for (int k = 0; k < 1000; k++) {
        struct vals want;
        make_vals(&want, k);
        __transaction_atomic {
            load_globals(&got);
            store_globals(&want);
        }
        TH_FORGET_MEMORY();
        if (k > 0) {
            struct vals prev;
            make_vals(&prev, k - 1);
            CHECK(vals_equal(&got, &prev));
        }
        check_globals(&want);
    }
    return 0;
}

/* Direct calls to every integer load/store barrier: _ITM_{R,RaR,RaW,RfW,W,WaR,WaW}{U1,U2,U4,U8}
 * on aligned globals, on unaligned fields of a packed struct, and on a word that straddles a
 * cache line. Inside a transaction reads return the transaction's own latest write; committed
 * writes are visible afterwards; a cancel restores the old value. */
#include "harness.h"

#include <stddef.h>

/* Every transaction also makes one ordinary access (see itm_abi_decl.h): committed ones count
 * in touch, cancelled ones set spoiled, which the cancel must undo. */
static int touch;
static int spoiled;

static int inside_bad;
TH_PURE static void note(int ok, int line)
{
    if (!ok) {
        fprintf(stderr, "inside-transaction check at line %d failed\n", line);
        inside_bad++;
    }
}
#define NOTE(c) note((c), __LINE__)

/* Runs the whole barrier sequence for one type on location p holding a; b and c are other
 * values. After it, *p == a again. */
#define TEST_TYPE(T, S, p, a, b, c)                        \
    do {                                                   \
        T *p_ = (p);                                       \
        T a_ = (a), b_ = (b), c_ = (c);                    \
        *p_ = a_;                                          \
        __transaction_atomic {                             \
            touch++;                                       \
            NOTE(_ITM_R##S(p_) == a_);                     \
            NOTE(_ITM_RaR##S(p_) == a_);                   \
            _ITM_WaR##S(p_, b_);                           \
            NOTE(_ITM_RaW##S(p_) == b_);                   \
            _ITM_WaW##S(p_, c_);                           \
            NOTE(_ITM_RaW##S(p_) == c_);                   \
            NOTE(_ITM_RaR##S(p_) == c_);                   \
        }                                                  \
        TH_FORGET_MEMORY();                                \
        CHECK(*p_ == c_);                                  \
        __transaction_atomic {                             \
            touch++;                                       \
            NOTE(_ITM_RfW##S(p_) == c_);                   \
            _ITM_WaR##S(p_, b_);                           \
            NOTE(_ITM_RaW##S(p_) == b_);                   \
        }                                                  \
        TH_FORGET_MEMORY();                                \
        CHECK(*p_ == b_);                                  \
        __transaction_atomic {                             \
            touch++;                                       \
            _ITM_W##S(p_, a_);                             \
            NOTE(_ITM_RaW##S(p_) == a_);                   \
            NOTE(_ITM_R##S(p_) == a_);                     \
        }                                                  \
        TH_FORGET_MEMORY();                                \
        CHECK(*p_ == a_);                                  \
        __transaction_atomic { /* cancel after W, WaW */   \
            spoiled = 1;                                   \
            _ITM_W##S(p_, b_);                             \
            NOTE(_ITM_RaW##S(p_) == b_);                   \
            _ITM_WaW##S(p_, c_);                           \
            NOTE(_ITM_RaW##S(p_) == c_);                   \
            __transaction_cancel;                          \
        }                                                  \
        TH_FORGET_MEMORY();                                \
        CHECK(*p_ == a_);                                  \
        __transaction_atomic { /* cancel after RfW, WaR */ \
            spoiled = 1;                                   \
            NOTE(_ITM_RfW##S(p_) == a_);                   \
            _ITM_WaR##S(p_, c_);                           \
            NOTE(_ITM_RaW##S(p_) == c_);                   \
            __transaction_cancel;                          \
        }                                                  \
        TH_FORGET_MEMORY();                                \
        CHECK(*p_ == a_);                                  \
        __transaction_atomic { /* cancel after R, WaR */   \
            spoiled = 1;                                   \
            NOTE(_ITM_R##S(p_) == a_);                     \
            _ITM_WaR##S(p_, b_);                           \
            NOTE(_ITM_RaW##S(p_) == b_);                   \
            __transaction_cancel;                          \
        }                                                  \
        TH_FORGET_MEMORY();                                \
        CHECK(*p_ == a_);                                  \
        CHECK_EQ(spoiled, 0);                              \
        CHECK_EQ(inside_bad, 0);                           \
    } while (0)

struct __attribute__((packed)) packed {
    uint8_t lead;
    uint16_t h;
    uint8_t gap1;
    uint32_t w;
    uint8_t gap2;
    uint64_t q;
    uint8_t tail;
};

static uint8_t g1;
static uint16_t g2;
static uint32_t g4;
static uint64_t g8;
static struct packed gp;
static unsigned char line_buf[256] __attribute__((aligned(64)));

#define FIELD(T, s, f) ((T *)((char *)&(s) + offsetof(struct packed, f)))

int main(void)
{
    th_check_runtime();
    int touches = 0;

    /* Aligned globals. */
    TEST_TYPE(uint8_t, U1, &g1, 0x5A, 0xC3, 0x01);
    TEST_TYPE(uint16_t, U2, &g2, 0x1234, 0xFEDC, 0x8001);
    TEST_TYPE(uint32_t, U4, &g4, 0x89ABCDEFu, 0x13579BDFu, 0x80000001u);
    TEST_TYPE(uint64_t, U8, &g8, 0x0123456789ABCDEFull, 0xFEDCBA9876543210ull,
              0x8000000000000001ull);
    touches += 4 * 3;

    /* Unaligned fields of a packed struct; the neighbours must not be disturbed. */
    memset(&gp, 0xEE, sizeof gp);
    TEST_TYPE(uint16_t, U2, FIELD(uint16_t, gp, h), 0xA1B2, 0xC3D4, 0xE5F6);
    TEST_TYPE(uint32_t, U4, FIELD(uint32_t, gp, w), 0x11223344u, 0x55667788u, 0x99AABBCCu);
    TEST_TYPE(uint64_t, U8, FIELD(uint64_t, gp, q), 0x0102030405060708ull,
              0x1112131415161718ull, 0xF1F2F3F4F5F6F7F8ull);
    touches += 3 * 3;
    CHECK_EQ(gp.lead, 0xEE);
    CHECK_EQ(gp.gap1, 0xEE);
    CHECK_EQ(gp.gap2, 0xEE);
    CHECK_EQ(gp.tail, 0xEE);

    /* Words straddling a 64-byte line, at every misalignment. */
    memset(line_buf, 0x77, sizeof line_buf);
    for (int off = 1; off < 8; off++) {
        unsigned char *at = line_buf + 64 - off;
        TEST_TYPE(uint64_t, U8, (uint64_t *)at, 0x0A0B0C0D0E0F1011ull * (uint64_t)off,
                  0x2122232425262728ull, 0x3132333435363738ull + (uint64_t)off);
        TEST_TYPE(uint32_t, U4, (uint32_t *)(at + 128), 0x41424344u * (uint32_t)off, 0x51525354u,
                  0x61626364u);
        TEST_TYPE(uint16_t, U2, (uint16_t *)(line_buf + 192 - (off & 1)), 0x7172, 0x8182,
                  (uint16_t)(0x9192 + off));
        touches += 3 * 3;
    }
    /* All bytes outside the tested words keep their fill value or the final test value. */
    CHECK_EQ(line_buf[0], 0x77);
    CHECK_EQ(line_buf[255], 0x77);
    CHECK_EQ(line_buf[64 - 9], 0x77);
    CHECK_EQ(touch, touches);
    return 0;
}

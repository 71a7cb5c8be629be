/* The _ITM_L* log functions called directly: _ITM_LU1..LU8, LF, LD, LE, LCF, LCD, LCE, LM64,
 * LM128, LM256 and LB. After logging a location, a transaction may overwrite it with plain
 * (uninstrumented) stores; a cancel must put back the logged value, a commit must keep the new
 * one. Logging the same location twice restores the value of the first log. */
// TMTEST: valgrind=yes
#include "harness.h"

static int spoiled; /* real transactional access for each transaction; a cancel undoes it */

/* Plain stores that GCC does not instrument (pure functions run as ordinary code). */
TH_PURE static void raw_fill(void *p, int byte, size_t n) { memset(p, byte, n); }

struct all {
    uint8_t u1;
    uint16_t u2;
    uint32_t u4;
    uint64_t u8;
    float f;
    double d;
    long double e;
    _Complex float cf;
    _Complex double cd;
    _Complex long double ce;
    __m64 m64;
    __m128 m128;
    __m256 m256;
};

static struct all g;

/* Compares member by member (the padding between members is not logged). */
#define SAME_MEMBER(a, b, m) (memcmp(&(a)->m, &(b)->m, sizeof (a)->m) == 0)
static int same_all(const struct all *a, const struct all *b)
{
    return SAME_MEMBER(a, b, u1) && SAME_MEMBER(a, b, u2) && SAME_MEMBER(a, b, u4) &&
           SAME_MEMBER(a, b, u8) && SAME_MEMBER(a, b, f) && SAME_MEMBER(a, b, d) &&
           SAME_MEMBER(a, b, e) && SAME_MEMBER(a, b, cf) && SAME_MEMBER(a, b, cd) &&
           SAME_MEMBER(a, b, ce) && SAME_MEMBER(a, b, m64) && SAME_MEMBER(a, b, m128) &&
           SAME_MEMBER(a, b, m256);
}
static unsigned char big[20000];

static void init_all(struct all *a)
{
    memset(a, 0, sizeof *a);
    a->u1 = 0x11;
    a->u2 = 0x2222;
    a->u4 = 0x44444444u;
    a->u8 = 0x8888888888888888ull;
    a->f = 1.5f;
    a->d = 2.5;
    a->e = 3.5L;
    a->cf = 1.0f + 2.0fi;
    a->cd = 3.0 + 4.0i;
    a->ce = 5.0L + 6.0Li;
    a->m64 = (__m64)0x6464646464646464ull;
    a->m128 = _mm_set1_ps(128.0f);
    a->m256 = (__m256){ 1, 2, 3, 4, 5, 6, 7, 8 };
}

/* Logs every member, then clobbers it with plain stores. */
#define LOG_AND_CLOBBER(byte)           \
    do {                                \
        _ITM_LU1(&g.u1);                \
        _ITM_LU2(&g.u2);                \
        _ITM_LU4(&g.u4);                \
        _ITM_LU8(&g.u8);                \
        _ITM_LF(&g.f);                  \
        _ITM_LD(&g.d);                  \
        _ITM_LE(&g.e);                  \
        _ITM_LCF(&g.cf);                \
        _ITM_LCD(&g.cd);                \
        _ITM_LCE(&g.ce);                \
        _ITM_LM64(&g.m64);              \
        _ITM_LM128(&g.m128);            \
        _ITM_LM256(&g.m256);            \
        raw_fill(&g, (byte), sizeof g); \
    } while (0)

int main(void)
{
    th_check_runtime();
    struct all want, clobbered;
    init_all(&want);
    memset(&clobbered, 0xA7, sizeof clobbered);

    /* Cancel restores every logged type. */
    init_all(&g);
    __transaction_atomic {
        spoiled = 1;
        LOG_AND_CLOBBER(0xA7);
        __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(spoiled, 0);
    CHECK(same_all(&g, &want));

    /* Commit keeps the plain stores. */
    __transaction_atomic {
        spoiled = 1;
        LOG_AND_CLOBBER(0xA7);
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(spoiled, 1);
    CHECK(same_all(&g, &clobbered));
    spoiled = 0;

    /* Logging twice: the cancel goes back to the value before the first log. */
    init_all(&g);
    __transaction_atomic {
        spoiled = 1;
        LOG_AND_CLOBBER(0x01);
        LOG_AND_CLOBBER(0x02);
        __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    CHECK(same_all(&g, &want));

    /* _ITM_LB on byte ranges of many sizes and alignments. */
    static const size_t sizes[] = { 1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 4095, 4097, 19000 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (size_t off = 0; off < 4; off++) {
            size_t n = sizes[i];
            for (size_t k = 0; k < sizeof big; k++)
                big[k] = (unsigned char)(k * 7 + i);
            __transaction_atomic {
                spoiled = 1;
                _ITM_LB(big + off, n);
                raw_fill(big + off, 0xEE, n);
                __transaction_cancel;
            }
            TH_FORGET_MEMORY();
            for (size_t k = 0; k < sizeof big; k++)
                CHECK_EQ(big[k], (unsigned char)(k * 7 + i));
            __transaction_atomic {
                spoiled = 1;
                _ITM_LB(big + off, n);
                raw_fill(big + off, 0xEE, n);
            }
            TH_FORGET_MEMORY();
            for (size_t k = 0; k < sizeof big; k++)
                CHECK_EQ(big[k], k >= off && k < off + n ? 0xEE : (unsigned char)(k * 7 + i));
            spoiled = 0;
        }
    }

    /* Overlapping logs of one buffer, then a cancel. */
    for (size_t k = 0; k < 256; k++)
        big[k] = (unsigned char)k;
    __transaction_atomic {
        spoiled = 1;
        _ITM_LB(big, 100);
        raw_fill(big, 1, 100);
        _ITM_LB(big + 50, 100);
        raw_fill(big + 50, 2, 100);
        _ITM_LB(big, 256);
        raw_fill(big, 3, 256);
        __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    for (size_t k = 0; k < 256; k++)
        CHECK_EQ(big[k], k);
    return 0;
}

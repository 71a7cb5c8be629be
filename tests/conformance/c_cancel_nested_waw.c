/* A location written by the outer transaction and written again in a nested transaction that
 * is then cancelled must get back the outer transaction's value (and the outer commit must
 * publish that value). At -O2 GCC emits the nested store as _ITM_WaW* ("write after write"),
 * because the enclosing transaction already wrote the location; so a runtime with closed nesting
 * must still log the old value at a WaW when the earlier write happened before the nested
 * transaction began. The same is done with direct barrier calls (both optimisation levels), for
 * several types and for memset/memcpy after a write.
 * The system libitm fails this under every method: none of its dispatches logs at WaW, so the
 * cancelled nested write survives. */
// TMTEST: libitm=skip:libitm does not log _ITM_WaW* stores, so a cancelled nested transaction cannot undo a WaW to a location the enclosing transaction wrote
#include "harness.h"

static int x;
static double dx;
static uint64_t u8;
static uint16_t u2;
static unsigned char buf[64], src[64];
static int other;
static volatile int runtime_one = 1;
static int inside_bad;
TH_PURE static void note(int ok) { inside_bad += !ok; }

int main(void)
{
    th_check_runtime();
    int one = runtime_one;

    /* Compiler-emitted. */
    for (int round = 0; round < 3; round++) {
        __transaction_atomic {
            x = 1;
            dx = 1.5;
            __transaction_atomic {
                x = 2;
                dx = 2.5;
                other = 1;
                if (one)
                    __transaction_cancel;
            }
            other = x + 10; /* reads the outer value back */
        }
        TH_FORGET_MEMORY();
        CHECK_EQ(x, 1);
        CHECK(dx == 1.5);
        CHECK_EQ(other, 11);
        x = 0;
        dx = 0;
    }

    /* Direct barriers: W in the outer, WaW in the cancelled inner transaction. */
    memset(buf, 0, sizeof buf);
    for (int i = 0; i < 64; i++)
        src[i] = (unsigned char)(i + 100);
    __transaction_atomic {
        other = 2;
        _ITM_WU8(&u8, 0x1111);
        _ITM_WU2(&u2, 0x22);
        _ITM_memsetW(buf, 0x33, 32);
        __transaction_atomic {
            other = 3;
            _ITM_WaWU8(&u8, 0x9999);
            _ITM_WaWU2(&u2, 0x99);
            _ITM_memsetWaW(buf, 0x99, 16);
            _ITM_memcpyRtWtaW(buf + 16, src, 16);
            if (one)
                __transaction_cancel;
        }
        note(_ITM_RU8(&u8) == 0x1111 && _ITM_RU2(&u2) == 0x22);
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(inside_bad, 0);
    CHECK_EQ(other, 2);
    CHECK_EQ(u8, 0x1111);
    CHECK_EQ(u2, 0x22);
    for (int i = 0; i < 64; i++)
        CHECK_EQ(buf[i], i < 32 ? 0x33 : 0);

    /* Several nested levels, each overwriting, the innermost two cancelled one after another. */
    x = 0;
    __transaction_atomic {
        x = 10;
        __transaction_atomic {
            x = 20;
            __transaction_atomic {
                x = 30;
                if (one)
                    __transaction_cancel;
            }
            other = x;
            if (one)
                __transaction_cancel;
        }
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(x, 10);
    return 0;
}

/* Read-modify-write updates (x++, x += k, x |= m, a[i] *= 2) in transactions that are cancelled.
 * At -O2 GCC compiles the first such update of a location as _ITM_RfW* (read for write)
 * followed by _ITM_WaW* (write after write): the runtime must log the old value at the RfW, or
 * treat the WaW as a first write, otherwise the cancel cannot restore it. The same sequence is
 * also made with direct barrier calls (at both optimisation levels).
 * libitm serialirr fails this: a transaction that may cancel runs with its "serial" undo-logging
 * dispatch, which logs on writes except WaW and never on RfW, so the updates survive the cancel
 * (gl_wt and ml_wt log at the RfW). */
// TMTEST: libitm-methods=gl_wt,ml_wt
#include "harness.h"

#define TM_SAFE __attribute__((transaction_safe))
#define NOINLINE __attribute__((noinline))

static int counter;
static uint64_t total = 1000;
static unsigned flags = 0x10;
static double scale[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
static uint32_t direct_u4 = 0xAAAA5555u;
static uint64_t direct_u8 = 42;
static volatile int runtime_one = 1;

TM_SAFE NOINLINE static void bump_all(int k)
{
    counter++;
    total += (uint64_t)k;
    flags |= 1u << (k & 7);
    for (int i = 0; i < 8; i++)
        scale[i] *= 2;
}

static void check_initial(void)
{
    CHECK_EQ(counter, 0);
    CHECK(total == 1000);
    CHECK_EQ(flags, 0x10);
    for (int i = 0; i < 8; i++)
        CHECK(scale[i] == i + 1);
    CHECK_EQ(direct_u4, 0xAAAA5555u);
    CHECK(direct_u8 == 42);
}

int main(void)
{
    th_check_runtime();
    int one = runtime_one;

    /* Inline updates in the transaction body. */
    for (int k = 0; k < 100; k++) {
        __transaction_atomic {
            counter++;
            total += (uint64_t)k;
            flags |= 1u << (k & 7);
            scale[k & 7] *= 3;
            if (one)
                __transaction_cancel;
        }
        TH_FORGET_MEMORY();
    }
    check_initial();

    /* Updates inside a transactional function. */
    for (int k = 0; k < 100; k++) {
        __transaction_atomic {
            bump_all(k);
            if (one)
                __transaction_cancel;
        }
        TH_FORGET_MEMORY();
    }
    check_initial();

    /* The barrier sequence itself, called directly. */
    __transaction_atomic {
        counter = 0; /* ordinary access, also undone */
        uint32_t v4 = _ITM_RfWU4(&direct_u4);
        _ITM_WaWU4(&direct_u4, v4 + 1);
        uint64_t v8 = _ITM_RfWU8(&direct_u8);
        _ITM_WaWU8(&direct_u8, v8 * 2);
        __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    check_initial();

    /* Committed updates still apply exactly once. */
    for (int k = 0; k < 10; k++) {
        __transaction_atomic {
            bump_all(k);
        }
        TH_FORGET_MEMORY();
    }
    CHECK_EQ(counter, 10);
    CHECK(total == 1045);
    CHECK_EQ(flags, 0x10 | 0xFF);
    CHECK(scale[0] == 1024 && scale[7] == 8 * 1024);
    return 0;
}

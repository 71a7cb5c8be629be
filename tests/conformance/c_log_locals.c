/* Local variables modified inside a transaction that is cancelled must keep their old values
 * after the block; when it commits they must have the new values. GCC saves or logs such locals
 * itself (registers, _ITM_L* calls, or instrumented stores once the address escapes); this
 * checks the combination with the runtime at -O0 and -O2. The cancel condition depends on run
 * time values so that the compiler cannot fold it.
 * Locals whose address escapes live in main's frame while the transaction starts in a helper
 * frame below it: the system libitm skips undo entries for the word at the very stack pointer of
 * the frame that began the transaction (see c_stack_frame_bottom.c), which this test is not
 * about. Loops in transactional code avoid plain fill/copy patterns: GCC 12 -O2 turns those into
 * uninstrumented memset/memcpy calls. */
#include "harness.h"

#define TM_SAFE __attribute__((transaction_safe))
#define NOINLINE __attribute__((noinline))

struct rec {
    int a;
    double b;
    char name[12];
};

static volatile int runtime_one = 1; /* read outside transactions only */
static int shared;

TM_SAFE NOINLINE static void bump_through(int *p, double *q, int n)
{
    for (int i = 0; i < n; i++) {
        *p += i;
        *q *= 2.0;
    }
}

TM_SAFE NOINLINE static void rename_rec(struct rec *r, char c)
{
    for (int i = 0; i < 11; i++)
        r->name[i] = (char)(c + (i & 1));
    r->a = -r->a;
}

/* Runs a transaction over the caller's locals; cancels when *acc reaches cancel_at. */
NOINLINE static void escape_tx(int *acc, double *prod, struct rec *r, int n, int cancel_at)
{
    __transaction_atomic {
        bump_through(acc, prod, n);
        rename_rec(r, 'y');
        if (*acc == cancel_at)
            __transaction_cancel;
    }
    TH_FORGET_MEMORY();
}

int main(void)
{
    th_check_runtime();
    int one = runtime_one;

    /* Scalars of several types. */
    int i32 = 17;
    uint8_t u8 = 200;
    double d = 0.75;
    long double e = 1.0L / 3.0L;
    char *ptr = NULL;
    __transaction_atomic {
        shared = 1;
        i32 = i32 * 3 + shared;
        u8 += 100;
        d = d * d;
        e = e + 1;
        ptr = (char *)&shared;
        if (one)
            __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(shared, 0);
    CHECK_EQ(i32, 17);
    CHECK_EQ(u8, 200);
    CHECK(d == 0.75);
    CHECK(e == 1.0L / 3.0L);
    CHECK(ptr == NULL);

    /* A local array and struct whose addresses do not escape. */
    int arr[16];
    struct rec r = { 5, 2.5, "original" };
    for (int k = 0; k < 16; k++)
        arr[k] = k * k;
    __transaction_atomic {
        for (int k = 0; k < 16; k++)
            arr[k] = arr[(k + one) & 15] - shared;
        r.a = arr[3];
        r.b = -r.b;
        r.name[0] = 'X';
        if (arr[0] == 1)
            __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    for (int k = 0; k < 16; k++)
        CHECK_EQ(arr[k], k * k);
    CHECK_EQ(r.a, 5);
    CHECK(r.b == 2.5);
    CHECK(strcmp(r.name, "original") == 0);

    /* Locals whose address escapes into transactional functions. */
    int acc = 10;
    double prod = 1.5;
    escape_tx(&acc, &prod, &r, 5 * one, 20);
    CHECK_EQ(acc, 10);
    CHECK(prod == 1.5);
    CHECK_EQ(r.a, 5);
    CHECK(strcmp(r.name, "original") == 0);

    /* The same, committed. */
    escape_tx(&acc, &prod, &r, 5 * one, -1);
    CHECK_EQ(acc, 20);
    CHECK(prod == 1.5 * 32);
    CHECK_EQ(r.a, -5);
    CHECK(strcmp(r.name, "yzyzyzyzyzy") == 0);

    /* A committed transaction in this frame reading and updating locals. */
    __transaction_atomic {
        i32 += acc;
        shared = i32;
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(i32, 37);
    CHECK_EQ(shared, 37);

    /* A loop of transactions updating a register-allocated local; odd rounds cancel. */
    long sum = 0, rounds_seen = 0;
    for (int k = 0; k < 2000; k++) {
        __transaction_atomic {
            sum += k;
            rounds_seen++;
            shared = k;
            if (k & one)
                __transaction_cancel;
        }
        TH_FORGET_MEMORY();
    }
    CHECK_EQ(sum, 999000);   /* sum of the even k below 2000 */
    CHECK_EQ(rounds_seen, 1000);
    CHECK_EQ(shared, 1998);
    return 0;
}

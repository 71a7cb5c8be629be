/* Relaxed transactions that perform unsafe operations: a stdio call (fprintf to /dev/null through
 * a FILE*), a volatile access, and an asm statement. GCC makes the transaction irrevocable
 * before each of them (_ITM_changeTransactionMode); the transaction must complete with all its
 * effects: writes made before the unsafe operation persist, and so do those after it, and
 * _ITM_inTransaction() reports 2 (irrevocable) after the operation. Several threads mix such
 * transactions with atomic ones on shared counters: no update may be lost and no transaction
 * may see a half-done update of another one. */
// TMTEST: valgrind=yes
#include "harness.h"

static FILE *devnull;
static long arr[100];
static long pair_a, pair_b; /* always equal outside transactions */
static long counter;
static int how_before, how_after;
static volatile int vol;
static int bad_pairs;

TH_PURE static void how(int *where) { *where = _ITM_inTransaction(); }
TH_PURE static void note_pair(long a, long b) { bad_pairs += (a != b); }

static void *mixer(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < 2000; i++) {
        if ((i + id) % 4 == 0) {
            __transaction_relaxed {
                long a = pair_a;
                pair_a = a + 1;
                fprintf(devnull, "%ld", a);
                pair_b = pair_b + 1;
                counter++;
            }
            TH_FORGET_MEMORY();
        } else {
            __transaction_atomic {
                note_pair(pair_a, pair_b);
                counter++;
            }
            TH_FORGET_MEMORY();
        }
    }
    return NULL;
}

int main(void)
{
    th_check_runtime();
    devnull = fopen("/dev/null", "w");
    CHECK(devnull != NULL);

    /* stdio */
    int printed = -1;
    __transaction_relaxed {
        for (int i = 0; i < 50; i++)
            arr[i] = i + 1;
        how(&how_before);
        printed = fprintf(devnull, "value %d\n", 12345);
        how(&how_after);
        for (int i = 50; i < 100; i++)
            arr[i] = i + 1;
    }
    TH_FORGET_MEMORY();
    CHECK(how_before == 1 || how_before == 2);
    CHECK_EQ(how_after, 2);
    CHECK_EQ(printed, 12);
    for (int i = 0; i < 100; i++)
        CHECK_EQ(arr[i], i + 1);
    CHECK_EQ(_ITM_inTransaction(), 0);

    /* volatile */
    int seen = 0;
    vol = 3;
    __transaction_relaxed {
        arr[0] = -1;
        how(&how_before);
        seen = vol;
        vol = seen * 2;
        how(&how_after);
        arr[1] = -2;
    }
    TH_FORGET_MEMORY();
    CHECK(how_before == 1 || how_before == 2);
    CHECK_EQ(how_after, 2);
    CHECK(seen == 3 && vol == 6);
    CHECK(arr[0] == -1 && arr[1] == -2 && arr[2] == 3);

    /* asm */
    long in = 41, out = 0;
    __transaction_relaxed {
        arr[3] = in;
        how(&how_before);
        __asm__ volatile("lea 1(%1), %0" : "=r"(out) : "r"(in));
        how(&how_after);
        arr[4] = out;
    }
    TH_FORGET_MEMORY();
    CHECK(how_before == 1 || how_before == 2);
    CHECK_EQ(how_after, 2);
    CHECK(out == 42 && arr[3] == 41 && arr[4] == 42);

    /* Irrevocable and ordinary transactions on several threads. */
    int n = th_threads();
    th_run(n, mixer);
    CHECK_EQ(bad_pairs, 0);
    CHECK_EQ(counter, (long)n * 2000);
    CHECK_EQ(pair_a, pair_b);
    CHECK_EQ(pair_a, (long)n * 500);
    fclose(devnull);
    return 0;
}

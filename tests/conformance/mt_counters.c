/* No lost increments.
 *  A: every thread increments one shared counter.
 *  B: every transaction increments one of a few counters (chosen at random) and a grand total;
 *     at the end the counters sum to the total and each equals the per-thread tallies.
 *  C: one struct with uint8/uint16/uint32/uint64 (and a signed int16) fields, all updated together
 *     in each transaction; the narrow fields wrap, so each must equal the exact count modulo its
 *     width, and the fields must agree with each other.
 *  D: sub-word neighbours: thread i increments byte (i % 8) of one shared 8-byte word and
 *     halfword (i % 4) of another. A runtime that logs or writes back whole words would lose the
 *     neighbours' increments.
 */
#include "harness.h"

#define NCTR 4
#define MAXT 64

static long one;
static long few[NCTR];
static long few_total;
static long tally[MAXT][NCTR];

static struct {
    uint8_t u8;
    uint16_t u16;
    int16_t s16;
    uint32_t u32;
    uint64_t u64;
    uint8_t tail;
} mixed;

static union {
    uint8_t b[8];
    uint64_t whole;
} bytes;
static union {
    uint16_t h[4];
    uint64_t whole;
} halves;

static long iters;

static void *phase_a(void *arg)
{
    (void)arg;
    for (long i = 0; i < iters; i++)
        __transaction_atomic { one++; }
    return NULL;
}

static void *phase_b(void *arg)
{
    int id = (int)(intptr_t)arg;
    uint64_t rng = 12345 + (uint64_t)id * 777;
    for (long i = 0; i < iters; i++) {
        int k = (int)(th_rand(&rng) % NCTR);
        __transaction_atomic {
            few[k]++;
            few_total++;
        }
        tally[id][k]++;
    }
    return NULL;
}

static void *phase_c(void *arg)
{
    (void)arg;
    for (long i = 0; i < iters; i++) {
        __transaction_atomic {
            mixed.u8++;
            mixed.u16 += 3;
            mixed.s16 -= 1;
            mixed.u32 += 7;
            mixed.u64 += 1ULL << 33;
            mixed.tail ^= 1;
        }
    }
    return NULL;
}

static void *phase_d(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (long i = 0; i < iters; i++) {
        __transaction_atomic {
            bytes.b[id % 8]++;
            halves.h[id % 4] += 1;
        }
    }
    return NULL;
}

int main(void)
{
    th_check_runtime();
    int n = th_threads();
    CHECK(n <= MAXT);
    iters = th_iters(50000);
    unsigned long long total = (unsigned long long)n * (unsigned long long)iters;

    th_run(n, phase_a);
    CHECK_EQ(one, total);

    th_run(n, phase_b);
    CHECK_EQ(few_total, total);
    long s = 0;
    for (int k = 0; k < NCTR; k++) {
        long expect = 0;
        for (int i = 0; i < n; i++)
            expect += tally[i][k];
        CHECK_EQ(few[k], expect);
        CHECK(few[k] > 0);
        s += few[k];
    }
    CHECK_EQ(s, total);

    th_run(n, phase_c);
    CHECK_EQ(mixed.u8, (uint8_t)total);
    CHECK_EQ(mixed.u16, (uint16_t)(total * 3));
    CHECK_EQ(mixed.s16, (int16_t)(uint16_t)(0 - total));
    CHECK_EQ(mixed.u32, (uint32_t)(total * 7));
    CHECK(mixed.u64 == (uint64_t)total << 33);
    CHECK_EQ(mixed.tail, (uint8_t)(total & 1));

    th_run(n, phase_d);
    for (int b = 0; b < 8; b++) {
        unsigned long long users = 0;
        for (int i = 0; i < n; i++)
            users += (i % 8) == b;
        CHECK_EQ(bytes.b[b], (uint8_t)(users * iters));
    }
    for (int h = 0; h < 4; h++) {
        unsigned long long users = 0;
        for (int i = 0; i < n; i++)
            users += (i % 4) == h;
        CHECK_EQ(halves.h[h], (uint16_t)(users * iters));
    }
    printf("mt_counters: %d threads x %ld iterations\n", n, iters);
    return 0;
}

/* Large transactions. 200000 distinct words written and then cancelled: every word is back to
 * its old value. 200000 words written and committed: every word has its new value. One
 * transaction reading 1000000 words sees a consistent snapshot while other threads keep moving
 * amounts between random words (the total never changes), and a transaction that writes 200000
 * words, half of them twice, commits correctly. */
// TMTEST: valgrind=yes
#include "harness.h"

#include <sched.h>

#define NW 200000
#define NR 1000000

static uint64_t wbig[NW];
static long rbig[NR];
static volatile int runtime_one = 1;
static volatile int stop;
static long movers_done;

static uint64_t old_word(long i) { return (uint64_t)i * 0x9E3779B97F4A7C15ull; }
static uint64_t new_word(long i, uint64_t salt) { return ((uint64_t)i << 20) ^ salt; }

/* Movers transfer amounts between random words while they have budget; the summer hands out a
 * budget for each round right before its big transaction, so its first attempts overlap the
 * transfers but it is not starved forever. */
static long budget; /* atomics, outside transactions */
static void *mover(void *arg)
{
    uint64_t rng = 12345 + (uint64_t)(intptr_t)arg;
    long done = 0;
    while (!stop) {
        if (__atomic_sub_fetch(&budget, 1, __ATOMIC_RELAXED) < 0) {
            __atomic_add_fetch(&budget, 1, __ATOMIC_RELAXED);
            sched_yield();
            continue;
        }
        long from = (long)(th_rand(&rng) % NR), to = (long)(th_rand(&rng) % NR);
        long amount = (long)(th_rand(&rng) % 100);
        __transaction_atomic {
            rbig[from] -= amount;
            rbig[to] += amount;
        }
        TH_FORGET_MEMORY();
        done++;
    }
    __transaction_atomic {
        movers_done += done;
    }
    TH_FORGET_MEMORY();
    return NULL;
}

static long big_sums_ok, big_sums_bad;
static void *summer(void *arg)
{
    (void)arg;
    for (int round = 0; round < 3; round++) {
        long sum = 0;
        __atomic_add_fetch(&budget, 2000, __ATOMIC_RELAXED);
        while (__atomic_load_n(&budget, __ATOMIC_RELAXED) > 1500) /* movers are running */
            sched_yield();
        __transaction_atomic {
            for (long i = 0; i < NR; i++)
                sum += rbig[i];
        }
        TH_FORGET_MEMORY();
        if (sum == (long)NR * 3)
            big_sums_ok++;
        else
            big_sums_bad++;
    }
    stop = 1;
    return NULL;
}

static void *role(void *arg) { return (intptr_t)arg == 0 ? summer(arg) : mover(arg); }

int main(void)
{
    th_check_runtime();
    int one = runtime_one;

    for (long i = 0; i < NW; i++)
        wbig[i] = old_word(i);

    /* 200000 writes, cancelled. */
    __transaction_atomic {
        for (long i = 0; i < NW; i++)
            wbig[i] = new_word(i, 0xABCDEF);
        if (one)
            __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    for (long i = 0; i < NW; i++)
        if (wbig[i] != old_word(i)) {
            fprintf(stderr, "word %ld not restored\n", i);
            return 1;
        }

    /* 200000 writes, committed. */
    __transaction_atomic {
        for (long i = 0; i < NW; i++)
            wbig[i] = new_word(i, 0x123);
    }
    TH_FORGET_MEMORY();
    for (long i = 0; i < NW; i++)
        CHECK(wbig[i] == new_word(i, 0x123));

    /* Half of the words written twice, then cancelled, then committed. */
    for (int cancel = 1; cancel >= 0; cancel--) {
        __transaction_atomic {
            for (long i = 0; i < NW; i++)
                wbig[i] = new_word(i, 0x77);
            for (long i = 0; i < NW; i += 2)
                wbig[i] = new_word(i, 0x88);
            if (cancel && one)
                __transaction_cancel;
        }
        TH_FORGET_MEMORY();
        for (long i = 0; i < NW; i++)
            CHECK(wbig[i] == (cancel ? new_word(i, 0x123)
                                     : new_word(i, (i & 1) ? 0x77 : 0x88)));
    }

    /* 1000000 reads under concurrent updates. */
    for (long i = 0; i < NR; i++)
        rbig[i] = 3;
    int n = th_threads();
    if (n < 2)
        n = 2;
    th_run(n, role);
    CHECK_EQ(big_sums_bad, 0);
    CHECK_EQ(big_sums_ok, 3);
    long total = 0;
    for (long i = 0; i < NR; i++)
        total += rbig[i];
    CHECK_EQ(total, (long)NR * 3);
    CHECK(movers_done >= 3 * 500);
    return 0;
}

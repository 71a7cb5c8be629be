/* Transactional writes to stack frames that are dead when the transaction is cancelled. A
 * transaction_safe function with a large local array passes the array's address to other
 * transactional functions, so GCC instruments (and the runtime logs) the stores to it. When the
 * transaction is later cancelled from a shallower frame, those frames no longer exist: the
 * runtime must not write the old values back there (that memory now holds the runtime's own
 * frames on the cancel path). The program must not crash, the caller's state must be intact and
 * the shared data must be rolled back. Also cancels from inside the deep frame ([[outer]]), at
 * several depths, on several threads at once. */
// TMTEST: valgrind=yes
// TMTEST: valgrind-div=4
#include "harness.h"

#define TM_SAFE __attribute__((transaction_safe))
#define NOINLINE __attribute__((noinline))
#define WORDS 4096 /* 32 KiB frame */

static uint64_t g_result[64];
static volatile int runtime_one = 1;
static long rounds; /* 40 (10 under valgrind: depths 0-7 still each come up) */

TM_SAFE NOINLINE static void fill_words(uint64_t *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = seed ^ (i * 0x9E3779B97F4A7C15ull);
}

TM_SAFE NOINLINE static uint64_t sum_words(const uint64_t *p, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += p[i] * (i | 1);
    return s;
}

static uint64_t expected_sum(uint64_t seed)
{
    uint64_t s = 0;
    for (size_t i = 0; i < WORDS; i++)
        s += (seed ^ (i * 0x9E3779B97F4A7C15ull)) * (i | 1);
    return s;
}

/* Recurses depth times, then fills a large local array and stores its checksum. */
TM_SAFE NOINLINE static uint64_t deep_work(int depth, uint64_t seed, int slot)
{
    if (depth > 0)
        return deep_work(depth - 1, seed, slot) + 1;
    uint64_t big[WORDS];
    fill_words(big, WORDS, seed);
    memset(big, 0x5A, 64); /* an _ITM_memset* on the dead-to-be frame too */
    fill_words(big, 8, seed);
    uint64_t s = sum_words(big, WORDS);
    g_result[slot] = s;
    return s;
}

/* Same, but cancels the whole transaction while the array's frame is still live. */
__attribute__((transaction_may_cancel_outer)) NOINLINE static void deep_cancel(int depth,
                                                                              uint64_t seed,
                                                                              int slot)
{
    if (depth > 0) {
        deep_cancel(depth - 1, seed, slot);
        return;
    }
    uint64_t big[WORDS];
    fill_words(big, WORDS, seed);
    g_result[slot] = sum_words(big, WORDS);
    if (g_result[slot] != 0)
        __transaction_cancel [[outer]];
}

static void *worker(void *arg)
{
    int slot = (int)(intptr_t)arg;
    int one = runtime_one;
    uint64_t guard[256];
    for (int i = 0; i < 256; i++)
        guard[i] = 0xC0FFEE00u + (uint64_t)i + (uint64_t)slot;

    for (int round = 0; round < rounds; round++) {
        int depth = round % 8;
        uint64_t seed = (uint64_t)round * 1000003u + (uint64_t)slot;
        uint64_t got = 0;

        g_result[slot] = 7;
        __transaction_atomic {
            got = deep_work(depth, seed, slot);
            if (one)
                __transaction_cancel;
        }
        TH_FORGET_MEMORY();
        CHECK(got == 0);              /* restored local */
        CHECK(g_result[slot] == 7);   /* restored shared data */

        __transaction_atomic [[outer]] {
            deep_cancel(depth, seed, slot);
        }
        TH_FORGET_MEMORY();
        CHECK(g_result[slot] == 7);

        __transaction_atomic {
            got = deep_work(depth, seed, slot);
        }
        TH_FORGET_MEMORY();
        CHECK(got == expected_sum(seed) + (uint64_t)depth);
        CHECK(g_result[slot] == expected_sum(seed));
    }
    for (int i = 0; i < 256; i++)
        CHECK(guard[i] == 0xC0FFEE00u + (uint64_t)i + (uint64_t)slot);
    return NULL;
}

int main(void)
{
    th_check_runtime();
    rounds = th_iters(40);
    worker((void *)(intptr_t)0);
    int n = th_threads();
    if (n > 63)
        n = 63;
    th_run(n, worker);
    return 0;
}

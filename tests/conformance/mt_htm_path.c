/* Where the CPU has Intel RTM, the `htm` algorithm runs transactions as hardware transactions
 * (runtime/core/htm.c) and no other fixed algorithm does: a transaction asks the CPU (XTEST,
 * from a transaction_pure function) whether it runs in hardware. Two threads transact, so the
 * serial path, not the single-thread bias, is taken (each transacts once, then waits for the
 * others, so that they overlap); each thread counts in its own cache line
 * (hardware transactions on one shared word conflict and fall back on the lock), and the
 * counts are checked, so a lost update on the hardware path shows. Without RTM (or with TMKIT_HTM=off) nothing runs in
 * hardware under any algorithm. GCC's libitm is not checked (it uses RTM as it likes).
 * Every 16th transaction also adds to a tm_counter_t and registers a commit handler (the
 * commit's slow path on the hardware path): both exact at the end. */
// TMTEST: threads=2
// TMTEST: cflags=-Og
#include "harness.h"
#include <immintrin.h>
#include <tmkit.h>

static int rtm;
static long iters, handled;
static tm_counter_t added = TM_COUNTER_INITIALIZER;
static pthread_barrier_t all_in;
static struct {
    _Alignas(64) long n;
} counter[64];

__attribute__((transaction_pure, noinline, target("rtm"))) static int in_hardware(void)
{
    return rtm && _xtest();
}

/* As the runtime decides (core/htm.c): RTM enumerated, and a hardware transaction commits. */
__attribute__((target("rtm"))) static int rtm_works(void)
{
    if (!__builtin_cpu_supports("rtm"))
        return 0;
    for (int i = 0; i < 64; i++)
        if (_xbegin() == _XBEGIN_STARTED) {
            _xend();
            return 1;
        }
    return 0;
}

static void *work(void *arg)
{
    long hw = 0, *mine = &counter[(intptr_t)arg].n;
    /* every thread transacts once before any goes on: then none runs under the bias */
    __transaction_atomic { ++*mine; }
    pthread_barrier_wait(&all_in);
    for (long i = 1; i < iters; i++) {
        __transaction_atomic {
            ++*mine;
            hw += in_hardware();
            if (i % 16 == 0) {
                tm_counter_add(&added, 1);
                tm_on_commit() { __atomic_fetch_add(&handled, 1, __ATOMIC_RELAXED); };
            }
        }
    }
    return (void *)hw;
}

int main(void)
{
    th_check_runtime();
    __builtin_cpu_init();
    rtm = rtm_works();
    iters = th_iters(20000);
    int n = th_threads() < 2 ? 2 : th_threads();
    pthread_t t[64];
    CHECK(n <= 64);
    CHECK(pthread_barrier_init(&all_in, NULL, (unsigned)n) == 0);
    for (int i = 0; i < n; i++)
        CHECK(pthread_create(&t[i], NULL, work, (void *)(intptr_t)i) == 0);
    long hw = 0;
    for (int i = 0; i < n; i++) {
        void *r;
        CHECK(pthread_join(t[i], &r) == 0);
        hw += (long)r;
    }
    for (int i = 0; i < n; i++)
        CHECK_EQ(counter[i].n, iters);
    CHECK_EQ(tm_counter_read(&added), (iters - 1) / 16 * n);
    CHECK_EQ(handled, (iters - 1) / 16 * n);
    const char *algo = getenv("TMKIT_ALGO"), *htm = getenv("TMKIT_HTM");
    const char *rt = getenv("EXPECT_RUNTIME");
    if (rt && strcmp(rt, "tmkit") == 0 && algo) {
        if (!rtm || (htm && strcmp(htm, "off") == 0))
            CHECK_EQ(hw, 0);
        else if (strcmp(algo, "htm") == 0)
            CHECK(hw > 0);
        else if (strcmp(algo, "adaptive") != 0)
            CHECK_EQ(hw, 0);
    }
    printf("ok (%ld of %ld transactions in hardware%s)\n", hw, iters * n, rtm ? "" : "; no RTM");
    return 0;
}

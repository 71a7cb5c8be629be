/* A transaction_safe function's own stack temporaries, written through barriers and read with
 * plain loads (and the reverse).
 *
 * GCC 12 -O2 -fgnu-tm compiles the transactional clone of pick() so that the inlined fill()
 * stores the struct's members into pick()'s frame through write barriers (_ITM_WU1, _ITM_WU8)
 * and the return then loads them with plain moves. Under a write-through runtime the loads see
 * the stores; under a redo log they saw whatever the stack held before (found by C++ STAMP's
 * std::pair returns, bench/results/third-party/). Such frames are created inside the
 * attempt and discarded by its restart, so the runtime accesses them in place.
 *
 * Also a transaction that fills the struct and is cancelled as a whole. (The transaction's own
 * function's locals are another matter: c_wt_stack_local.)
 */
#include <stdbool.h>

#include "harness.h"

#define FAIL(...) (fprintf(stderr, __VA_ARGS__), fputc('\n', stderr), exit(1))

typedef struct {
    bool big;
    long twice;
} answer;

static inline __attribute__((transaction_safe)) void fill(answer *a, bool big, long twice)
{
    a->big = big;
    a->twice = twice;
}

/* noipa at -O2: the caller's instrumented path calls the clone as it would in another file
 * (without it GCC specializes the call away and the barriers are gone); at -O0, where GCC 12
 * then calls it as an unregistered indirect target, plain noinline is enough. */
#ifdef __OPTIMIZE__
#define PICK_ATTRS transaction_safe, noipa
#else
#define PICK_ATTRS transaction_safe, noinline
#endif
__attribute__((PICK_ATTRS)) answer pick(long x);
__attribute__((PICK_ATTRS)) answer pick(long x)
{
    answer a;
    if (x > 10)
        fill(&a, true, 2 * x);
    else
        fill(&a, false, 0);
    return a;
}

/* bytes that are neither a bool nor the answer where pick()'s frame will be */
__attribute__((noinline)) static void dirty_stack(void)
{
    volatile unsigned char junk[512];
    for (int i = 0; i < 512; i++)
        junk[i] = 0x5a;
    (void)junk[0];
}

static long shared_total;

int main(void)
{
    th_check_runtime();
    long n = th_iters(2000);
    for (long i = 0; i < n; i++) {
        dirty_stack();
        answer a;
        __transaction_atomic {
            a = pick(i);
        }
        bool want = i > 10;
        if (a.big != want || a.twice != (want ? 2 * i : 0))
            FAIL("pick(%ld) = {%d, %ld}, want {%d, %ld}", i, (int)*(unsigned char *)&a.big,
                    a.twice, (int)want, want ? 2 * i : 0);
    }
    /* the clone's result used inside the transaction (not through a local of main) */
    for (long i = 0; i < n; i++) {
        dirty_stack();
        __transaction_atomic {
            shared_total += pick(i).twice;
        }
    }
    long want_total = 0;
    for (long i = 11; i < n; i++)
        want_total += 2 * i;
    CHECK_EQ(shared_total, want_total);

    /* a whole transaction cancelled after filling: nothing it wrote stays */
    answer c = {false, 7};
    __transaction_atomic {
        c = pick(100);
        if (c.twice == 200)
            __transaction_cancel;
    }
    CHECK_EQ(c.twice, 7);
    CHECK(!c.big);
    printf("c_stack_temps: %ld calls, total %ld\n", 2 * n + 1, shared_total);
    return 0;
}

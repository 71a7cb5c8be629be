/* A local of the function that runs the transaction, written through a barrier and read with a
 * plain load: GCC 12 -O0 -fgnu-tm copies a returned struct into an address-taken local with
 * _ITM_memcpyRnWt and then loads its member with a plain move, inside the same transaction. Write-through
 * runtimes (libitm, tmkit's default) have the bytes in memory at once; a redo log buffers them
 * and the plain load sees the previous iteration's value. The local's frame is live after a
 * restart and other threads may have its address, so unlike the callee frames of c_stack_temps
 * the runtime cannot simply write it in place: a documented limit of norec and orec_lazy
 * (docs/algorithms.md, "Redo logs and programs written for libitm"). At -O2 the local lives in
 * registers and every algorithm passes.
 */
// TMTEST: fails=norec,orec_lazy@O0:GCC reads a barrier-written local of the transaction's function with a plain load at -O0
#include <stdbool.h>

#include "harness.h"

typedef struct {
    bool big;
    long twice;
} answer;

__attribute__((transaction_safe, noinline)) static answer pick(long x)
{
    answer a = {x > 10, x > 10 ? 2 * x : 0};
    return a;
}

static long shared_total;
static const answer *last_seen;

__attribute__((noinline)) static void seen(const answer *a) { last_seen = a; }

int main(void)
{
    th_check_runtime();
    long n = th_iters(2000);
    for (long i = 0; i < n; i++) {
        answer a;
        __transaction_atomic {
            a = pick(i);
            shared_total += a.twice;
        }
        CHECK_EQ(a.twice, i > 10 ? 2 * i : 0);
        seen(&a); /* the address escapes: GCC then writes `a` in the transaction by barrier */
    }
    long want_total = 0;
    for (long i = 11; i < n; i++)
        want_total += 2 * i;
    CHECK_EQ(shared_total, want_total);
    printf("c_wt_stack_local: %ld transactions, total %ld\n", n, shared_total);
    return 0;
}

/* Flat nesting (nested atomic transactions without cancel). Inner writes are visible to the
 * enclosing transaction right after the inner block, but to nobody else before the outermost
 * commit: concurrent transactional readers must never see the outer write without the inner
 * ones or vice versa. Depth 50 through recursion in a transaction_safe function. The nested
 * transactions share the outermost transaction's id, _ITM_inTransaction is non-zero at every
 * level, and a commit action registered at the deepest level runs once, after the outermost
 * commit only. */
#include "harness.h"

#define TM_SAFE __attribute__((transaction_safe))
#define NOINLINE __attribute__((noinline))
#define DEPTH 50

static long x, y, z;
static int depth_mark[DEPTH + 1];
static _ITM_transactionId_t ids[DEPTH + 1];
static int in_tx[DEPTH + 1];
static int action_runs;
static int action_seen_inside = -1;

TH_PURE static void record(int d)
{
    ids[d] = _ITM_getTransactionId();
    in_tx[d] = _ITM_inTransaction();
}
static void on_commit(void *arg) { action_runs += (int)(intptr_t)arg; }
TH_PURE static void peek_action_runs(void) { action_seen_inside = action_runs; }

TM_SAFE NOINLINE static void nest(int d)
{
    __transaction_atomic {
        record(d);
        depth_mark[d] = d + 1;
        if (d > 0)
            nest(d - 1);
        else
            _ITM_addUserCommitAction(on_commit, TH_NO_TRANSACTION_ID, (void *)(intptr_t)1);
        depth_mark[d] += depth_mark[d > 0 ? d - 1 : 0];
    }
}

static long iters;

static void *writer(void *arg)
{
    (void)arg;
    for (long i = 0; i < iters; i++) {
        __transaction_atomic {
            x++;
            __transaction_atomic {
                y++;
                __transaction_atomic {
                    z++;
                }
            }
        }
        TH_FORGET_MEMORY();
    }
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    for (long i = 0; i < iters; i++) {
        long a, b, c;
        __transaction_atomic {
            a = x;
            b = y;
            c = z;
        }
        TH_FORGET_MEMORY();
        CHECK(a == b && b == c);
    }
    return NULL;
}

static void *role(void *arg)
{
    return ((intptr_t)arg % 2 == 0) ? writer(arg) : reader(arg);
}

int main(void)
{
    th_check_runtime();

    /* Inner writes are visible to the outer transaction after the inner block. */
    long seen = -1;
    __transaction_atomic {
        x = 5;
        __transaction_atomic {
            y = x + 1;
        }
        seen = y;
        z = y + 1;
    }
    TH_FORGET_MEMORY();
    CHECK(seen == 6 && x == 5 && y == 6 && z == 7);

    /* Depth 50. */
    __transaction_atomic {
        nest(DEPTH);
        peek_action_runs();
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(action_seen_inside, 0);
    CHECK_EQ(action_runs, 1);
    CHECK_EQ(depth_mark[0], 2);
    for (int d = 1; d <= DEPTH; d++) {
        CHECK_EQ(depth_mark[d], d + 1 + depth_mark[d - 1]);
        CHECK(ids[d] == ids[0]);
        CHECK(in_tx[d] != 0);
    }
    CHECK_EQ(_ITM_inTransaction(), 0);

    /* Concurrent readers never see a partial nested update. */
    x = y = z = 0;
    iters = th_iters(100000);
    int n = th_threads();
    if (n < 2)
        n = 2;
    th_run(n, role);
    long writers = (n + 1) / 2;
    CHECK(x == writers * iters && y == x && z == x);
    return 0;
}

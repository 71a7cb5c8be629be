/* Query functions. Outside a transaction _ITM_inTransaction() is 0 and _ITM_getTransactionId()
 * is 1 (_ITM_noTransactionId). Inside, _ITM_inTransaction() is 1 or 2, and exactly 1 in a
 * transaction that can still be cancelled; the id is not 1, is the same at every level of flat
 * nesting, and differs between successive transactions (committed or cancelled) and between the
 * transactions of concurrent threads. _ITM_libraryVersion() is a non-empty string and
 * _ITM_versionCompatible() accepts the libitm ABI version 90 only.
 * The first two transactions of the process are not checked for id != 1: the system libitm hands
 * out ids 0, 1, 2, ... so its second transaction gets 1 (c_txn_id_first.c checks that). */
#include "harness.h"

#define TM_SAFE __attribute__((transaction_safe))
#define NOINLINE __attribute__((noinline))

static int g;
static volatile int runtime_one = 1;

TH_PURE static void rec(_ITM_transactionId_t *id, int *how)
{
    *id = _ITM_getTransactionId();
    *how = _ITM_inTransaction();
}

TM_SAFE NOINLINE static void nested_ids(_ITM_transactionId_t *ids, int *hows)
{
    __transaction_atomic {
        g = 1;
        rec(&ids[1], &hows[1]);
        __transaction_atomic {
            g = 2;
            rec(&ids[2], &hows[2]);
        }
        rec(&ids[3], &hows[3]);
    }
}

#define PER_THREAD 2000
static _ITM_transactionId_t all_ids[64 * PER_THREAD];

static void *id_worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    int how;
    for (int i = 0; i < PER_THREAD; i++) {
        __transaction_atomic {
            g = i;
            rec(&all_ids[t * PER_THREAD + i], &how);
        }
        TH_FORGET_MEMORY();
    }
    return NULL;
}

static int cmp_id(const void *a, const void *b)
{
    _ITM_transactionId_t x = *(const _ITM_transactionId_t *)a, y = *(const _ITM_transactionId_t *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    th_check_runtime();
    int one = runtime_one;
    _ITM_transactionId_t id[8];
    int how[8];

    const char *v = _ITM_libraryVersion();
    CHECK(v != NULL && v[0] != '\0');
    CHECK(_ITM_versionCompatible(90) != 0);
    CHECK(_ITM_versionCompatible(0) == 0);
    CHECK(_ITM_versionCompatible(-1) == 0);
    CHECK(_ITM_versionCompatible(1000000) == 0);
    CHECK_EQ(_ITM_inTransaction(), 0);
    CHECK_EQ(_ITM_getTransactionId(), TH_NO_TRANSACTION_ID);

    /* Warm-up (see the note at the top). */
    for (int i = 0; i < 2; i++) {
        __transaction_atomic {
            g = i;
            rec(&id[i], &how[i]);
        }
        TH_FORGET_MEMORY();
        CHECK(how[i] == 1 || how[i] == 2);
    }
    CHECK(id[0] != id[1]);

    /* Flat nesting shares the id. */
    nested_ids(id, how);
    CHECK(id[1] != TH_NO_TRANSACTION_ID);
    CHECK(id[1] == id[2] && id[2] == id[3]);
    CHECK(how[1] != 0 && how[2] != 0 && how[3] != 0);
    CHECK_EQ(_ITM_getTransactionId(), TH_NO_TRANSACTION_ID);

    /* A transaction that may cancel is retryable (1), and cancelled ones get ids too. The
     * results go to static arrays through a pure function, so the cancel does not undo them
     * (locals would be restored by the compiler; so would, at -O2, a static that was assigned a
     * known value just before the transaction). */
    static _ITM_transactionId_t loop_id[100];
    static int loop_how[100];
    for (int i = 0; i < 100; i++) {
        __transaction_atomic {
            g = -i;
            rec(&loop_id[i], &loop_how[i]);
            if ((i & 1) && one)
                __transaction_cancel;
        }
        TH_FORGET_MEMORY();
    }
    _ITM_transactionId_t prev = id[1];
    for (int i = 0; i < 100; i++) {
        CHECK_EQ(loop_how[i], 1);
        CHECK(loop_id[i] != TH_NO_TRANSACTION_ID);
        CHECK(loop_id[i] != prev);
        prev = loop_id[i];
    }
    CHECK_EQ(g, -98);
    CHECK_EQ(_ITM_inTransaction(), 0);
    CHECK_EQ(_ITM_getTransactionId(), TH_NO_TRANSACTION_ID);

    /* Ids of the transactions of concurrent threads are all distinct. */
    int n = th_threads();
    if (n > 64)
        n = 64;
    th_run(n, id_worker);
    qsort(all_ids, (size_t)n * PER_THREAD, sizeof all_ids[0], cmp_id);
    for (int i = 0; i < n * PER_THREAD; i++) {
        CHECK(all_ids[i] != TH_NO_TRANSACTION_ID);
        if (i > 0)
            CHECK(all_ids[i] != all_ids[i - 1]);
    }
    return 0;
}

/* Bank transfers under high contention: few accounts, every thread moves random amounts between
 * random accounts, and every 8th operation is a read-only audit that sums all accounts.
 *
 * Invariants:
 *  - inside every audit transaction the sum equals the constant total (opacity: no transaction,
 *    not even one that will later abort, may observe a half-applied transfer); the check runs
 *    inside the transaction through a transaction_pure reporter, so a zombie snapshot fails it;
 *  - each transfer also bumps a per-account operation count and a global transfer count in the
 *    same transaction; audits check sum(ops) == 2 * transfers (each transfer touches two accounts);
 *  - at the end the total is preserved and the transfer count equals the number of transfers the
 *    threads committed.
 */
// TMTEST: valgrind=yes
// TMTEST: valgrind-div=4
#include "harness.h"

#define NACC 4
#define START 1000

static long balance[NACC];
static long ops[NACC];
static long transfers;
static long audits_done;

static long n_ops;

static void *worker(void *arg)
{
    uint64_t rng = 0x9E3779B97F4A7C15ULL * (uint64_t)((intptr_t)arg + 1);
    long mine = 0, my_audits = 0;
    for (long i = 0; i < n_ops; i++) {
        uint64_t r = th_rand(&rng);
        if ((r & 7) == 0) {
            __transaction_atomic {
                long sum = 0, nops = 0;
                for (int k = 0; k < NACC; k++) {
                    sum += balance[k];
                    nops += ops[k];
                }
                if (sum != (long)NACC * START)
                    th_tx_fail("sum of balances = %ld, expected %ld", sum, (long)NACC * START);
                if (nops != 2 * transfers)
                    th_tx_fail("sum of per-account ops = %ld, expected %ld", nops, 2 * transfers);
            }
            my_audits++;
            continue;
        }
        int from = (int)((r >> 8) % NACC);
        int to = (int)((r >> 16) % (NACC - 1));
        if (to >= from)
            to++; /* distinct accounts */
        long amount = (long)((r >> 24) % 200) - 50; /* may be negative: balances may go below 0 */
        __transaction_atomic {
            balance[from] -= amount;
            balance[to] += amount;
            ops[from]++;
            ops[to]++;
            transfers++;
        }
        mine++;
    }
    __transaction_atomic { audits_done += my_audits; }
    return (void *)(intptr_t)mine;
}

int main(void)
{
    th_check_runtime();
    int n = th_threads();
    n_ops = th_iters(150000);
    for (int k = 0; k < NACC; k++)
        balance[k] = START;

    pthread_t *t = calloc((size_t)n, sizeof *t);
    CHECK(t != NULL);
    for (int i = 0; i < n; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) == 0);
    long committed = 0;
    for (int i = 0; i < n; i++) {
        void *ret;
        CHECK(pthread_join(t[i], &ret) == 0);
        committed += (long)(intptr_t)ret;
    }
    free(t);

    long sum = 0, nops = 0;
    for (int k = 0; k < NACC; k++) {
        sum += balance[k];
        nops += ops[k];
    }
    CHECK_EQ(sum, (long)NACC * START);
    CHECK_EQ(transfers, committed);
    CHECK_EQ(nops, 2 * committed);
    CHECK_EQ(committed + audits_done, (long)n * n_ops);
    CHECK(audits_done > 0);
    printf("mt_bank_contended: %d threads, %ld transfers, %ld audits\n", n, committed, audits_done);
    return 0;
}

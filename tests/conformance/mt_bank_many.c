/* Bank transfers with many accounts (low contention, long read-only audits).
 *
 * 4096 accounts; each carries its balance and a shadow that must always equal -balance. A
 * transfer moves a random amount along a random chain of 2..4 distinct accounts in one transaction
 * (updating balances and shadows). Every 64th operation is an audit: a read-only transaction that
 * walks all accounts starting at a random index and checks, inside the transaction, that every
 * shadow matches and that the total is the constant. Long read-only transactions overlapping many
 * small writers are where a runtime without opacity (or with a broken read-set validation)
 * shows half-applied transfers.
 *
 * At the end: total preserved, every shadow consistent, and the sum of |amount| moved that the
 * threads recorded locally equals the shared volume counter updated in the same transactions.
 */
// TMTEST: libitm-div=4
// TMTEST: o0-div=4
#include "harness.h"

#define NACC 4096
#define START 100

struct account {
    long balance;
    long shadow;
};

static struct account acc[NACC];
static long volume;
static long n_ops;

static void audit(uint64_t r)
{
    int start = (int)(r % NACC);
    __transaction_atomic {
        long sum = 0;
        for (int k = 0; k < NACC; k++) {
            int i = (start + k) % NACC;
            long b = acc[i].balance;
            long s = acc[i].shadow;
            if (b + s != 0)
                th_tx_fail("balance+shadow[%ld] = %ld, expected 0", (long)i, (long)(b + s));
            sum += b;
        }
        if (sum != (long)NACC * START)
            th_tx_fail("total = %ld, expected %ld", (long)sum, (long)NACC * START);
    }
}

static void *worker(void *arg)
{
    uint64_t rng = 0xD1B54A32D192ED03ULL * (uint64_t)((intptr_t)arg + 7);
    long my_volume = 0;
    for (long i = 0; i < n_ops; i++) {
        uint64_t r = th_rand(&rng);
        if ((r & 63) == 0) {
            audit(r >> 6);
            continue;
        }
        int legs = 1 + (int)((r >> 6) % 3);
        int idx[4];
        idx[0] = (int)((r >> 8) % NACC);
        for (int l = 1; l <= legs; l++) /* distinct neighbours along a random stride */
            idx[l] = (idx[l - 1] + 1 + (int)((r >> (20 + 4 * l)) % 15)) % NACC;
        long amount = 1 + (long)((r >> 40) % 50);
        __transaction_atomic {
            for (int l = 0; l < legs; l++) {
                acc[idx[l]].balance -= amount;
                acc[idx[l]].shadow += amount;
                acc[idx[l + 1]].balance += amount;
                acc[idx[l + 1]].shadow -= amount;
            }
            volume += amount * legs;
        }
        my_volume += amount * legs;
    }
    return (void *)(intptr_t)my_volume;
}

int main(void)
{
    th_check_runtime();
    int n = th_threads();
    n_ops = th_iters(240000) / n; /* the same total work for any thread count */
    for (int k = 0; k < NACC; k++) {
        acc[k].balance = START;
        acc[k].shadow = -START;
    }

    pthread_t *t = calloc((size_t)n, sizeof *t);
    CHECK(t != NULL);
    for (int i = 0; i < n; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) == 0);
    long moved = 0;
    for (int i = 0; i < n; i++) {
        void *ret;
        CHECK(pthread_join(t[i], &ret) == 0);
        moved += (long)(intptr_t)ret;
    }
    free(t);

    long sum = 0;
    int changed = 0;
    for (int k = 0; k < NACC; k++) {
        CHECK_EQ(acc[k].balance + acc[k].shadow, 0);
        sum += acc[k].balance;
        changed += acc[k].balance != START;
    }
    CHECK_EQ(sum, (long)NACC * START);
    CHECK_EQ(volume, moved);
    CHECK(changed > NACC / 2); /* the transfers really landed */
    printf("mt_bank_many: %d threads, volume %ld, %d accounts changed\n", n, moved, changed);
    return 0;
}

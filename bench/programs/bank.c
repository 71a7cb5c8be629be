/* bank: threads move money between accounts; a few operations audit every account.
 * A transfer takes a random amount from one random account to another; an audit sums all
 * accounts in one transaction and must always see the initial total.
 * Invariant: no audit saw a wrong total, and the final total equals the initial one.
 */
#include "bench.h"

#define INITIAL 1000

static long n_accounts = 1024, audit_pct = 1;

static const bench_option options[] = {
    {"accounts", BENCH_LONG, &n_accounts, 2, 1 << 24, NULL, "number of accounts"},
    {"audit-pct", BENCH_LONG, &audit_pct, 0, 100, NULL, "percent of operations that audit"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

static long *accounts;

TM_SAFE static long audit(const long *acc, long n)
{
    long total = 0;
    for (long i = 0; i < n; i++)
        total += acc[i];
    return total;
}

static int bench_setup(int threads)
{
    accounts = bench_xalloc((size_t)n_accounts * sizeof *accounts);
    for (long i = 0; i < n_accounts; i++)
        accounts[i] = INITIAL;
    return 0;
}

static void bench_thread_init(bench_thread *t)
{
}

/* count[0]: audits that saw a wrong total. */
static inline void bench_op(bench_thread *t)
{
    uint64_t r = bench_rand(t);
    if ((long)(r % 100) < audit_pct) {
        long total;
        TXN_BEGIN
        total = audit(accounts, n_accounts);
        TXN_END
        if (total != n_accounts * INITIAL)
            t->count[0]++;
    } else {
        long a = bench_rand_below(t, n_accounts), b = bench_rand_below(t, n_accounts);
        long amount = (long)(r >> 56) % 10;
        TXN_BEGIN
        accounts[a] -= amount;
        accounts[b] += amount;
        TXN_END
    }
}

static int bench_check(bench_thread *ts, int n)
{
    for (int i = 0; i < n; i++)
        if (ts[i].count[0] != 0)
            return 0;
    return audit(accounts, n_accounts) == n_accounts * INITIAL;
}

static void bench_report(FILE *out)
{
}

int main(int argc, char **argv)
{
    return bench_main(argc, argv, "bank", options);
}

/* Thread-local state is restored when a transaction restarts.
 *
 * All threads hammer the same ticket counter (plus a few shared words to widen the conflict
 * window), so transactions under an optimistic runtime abort and restart often. Each transaction
 * also updates thread-local state that lives outside it:
 *  - a scalar local that accumulates the ticket values (register or stack, at -O2 and -O0);
 *  - a local counter of committed transactions;
 *  - a local array indexed by the ticket;
 *  - an address-taken local struct updated through a transaction_safe function.
 * A restart that does not roll these back counts the aborted attempt too. At the end the per-
 * thread counts must be exactly the iteration count, and summed over threads the ticket sums and
 * histograms must match the tickets handed out (0..N-1, each exactly once).
 * The number of attempts (counted through a transaction_pure hook) is reported to show that
 * restarts really happened.
 */
#include "harness.h"

#define HIST 8
#define MAXT 64

struct stats {
    long calls;
    long last;
};

static long ticket;
static long spread[4];
static long attempts;
static long iters;

static long th_sum[MAXT], th_count[MAXT], th_hist[MAXT][HIST], th_calls[MAXT];

static void __attribute__((transaction_pure)) count_attempt(void)
{
    __atomic_fetch_add(&attempts, 1, __ATOMIC_RELAXED);
}

__attribute__((transaction_safe)) static void note(struct stats *st, long t)
{
    st->calls++;
    st->last = t;
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    long sum = 0, count = 0;
    long hist[HIST] = {0};
    struct stats st = {0, -1};
    for (long i = 0; i < iters; i++) {
        __transaction_atomic {
            count_attempt();
            long t = ticket;
            ticket = t + 1;
            for (int k = 0; k < 4; k++)
                spread[k] += t & 1;
            sum += t;
            count++;
            hist[t % HIST]++;
            note(&st, t);
        }
    }
    CHECK_EQ(count, iters);
    CHECK_EQ(st.calls, iters);
    long h = 0;
    for (int k = 0; k < HIST; k++)
        h += hist[k];
    CHECK_EQ(h, iters);
    th_sum[id] = sum;
    th_count[id] = count;
    th_calls[id] = st.calls;
    memcpy(th_hist[id], hist, sizeof hist);
    return NULL;
}

int main(void)
{
    th_check_runtime();
    int n = th_threads();
    CHECK(n <= MAXT);
    iters = th_iters(100000);
    th_run(n, worker);

    long total = (long)n * iters;
    CHECK_EQ(ticket, total);
    long sum = 0, count = 0;
    for (int i = 0; i < n; i++) {
        sum += th_sum[i];
        count += th_count[i];
        CHECK_EQ(th_calls[i], iters);
    }
    CHECK_EQ(count, total);
    CHECK_EQ(sum, total * (total - 1) / 2);
    for (int k = 0; k < HIST; k++) {
        long h = 0;
        for (int i = 0; i < n; i++)
            h += th_hist[i][k];
        /* tickets 0..total-1 that are congruent to k */
        CHECK_EQ(h, total / HIST + (k < total % HIST));
    }
    for (int k = 0; k < 4; k++)
        CHECK_EQ(spread[k], total / 2);
    CHECK(attempts >= total);
    printf("mt_locals_restart: %d threads, %ld transactions, %ld attempts\n", n, total, attempts);
    return 0;
}

/* Workload phases that make the adaptive algorithm change its mind many times.
 *
 * For about a second, the threads alternate every 40 ms between
 *  - "hot": every transaction increments one shared counter (all conflict: serial or gl_wt win),
 *  - "transfer": transactions move amounts between random slots of an array and, one time in
 *    four, read the whole array and check its sum (read-mostly: NOrec wins),
 * so the adaptive contention manager probes and switches among NOrec, gl_wt and serial while
 * transactions of the other algorithm may still be in flight. Invariants: the array's sum never
 * changes (checked inside transactions and at the end), the counter equals the number of
 * committed increments, and each thread's private tally of transfers matches the slots' net
 * flow. Under the other algorithms it is one more mixed-conflict torture test.
 */
#include "harness.h"

#define SLOTS 64
#define PHASE_S 0.04

static long slots[SLOTS];
static long counter;
static long moved_in[SLOTS];
static int stop_flag;
static double t_start;

typedef struct {
    int id;
    long increments, bad_sums;
    long flow[SLOTS];
} worker_t;

static void *worker(void *arg)
{
    worker_t *w = arg;
    uint64_t rng = 0x1234567ULL + (uint64_t)w->id * 0x9E3779B97F4A7C15ULL;
    while (!__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE)) {
        int hot = ((long)((th_now() - t_start) / PHASE_S)) % 2 == 0;
        for (int k = 0; k < 64; k++) {
            if (hot) {
                __transaction_atomic { counter++; }
                w->increments++;
                continue;
            }
            uint64_t r = th_rand(&rng);
            int a = (int)(r % SLOTS), b = (int)((r >> 8) % SLOTS);
            long amount = (long)((r >> 16) % 7) + 1;
            if ((r >> 24) % 4 == 0) {
                long sum = 0;
                __transaction_atomic {
                    sum = 0;
                    for (int i = 0; i < SLOTS; i++)
                        sum += slots[i];
                }
                if (sum != 1000L * SLOTS)
                    w->bad_sums++;
            } else {
                __transaction_atomic {
                    slots[a] -= amount;
                    slots[b] += amount;
                }
                w->flow[a] -= amount;
                w->flow[b] += amount;
            }
        }
    }
    return NULL;
}

int main(void)
{
    th_check_runtime();
    int n = th_threads();
    for (int i = 0; i < SLOTS; i++)
        slots[i] = 1000;
    worker_t *w = calloc((size_t)n, sizeof *w);
    pthread_t *t = calloc((size_t)n, sizeof *t);
    CHECK(w && t);
    t_start = th_now();
    for (int i = 0; i < n; i++) {
        w[i].id = i;
        CHECK(pthread_create(&t[i], NULL, worker, &w[i]) == 0);
    }
    double until = t_start + 0.5 * (double)th_iters(2);
    while (th_now() < until)
        usleep(10000);
    __atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
    long increments = 0, bad = 0;
    for (int i = 0; i < n; i++) {
        CHECK(pthread_join(t[i], NULL) == 0);
        increments += w[i].increments;
        bad += w[i].bad_sums;
        for (int s = 0; s < SLOTS; s++)
            moved_in[s] += w[i].flow[s];
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(counter, increments);
    CHECK(increments > 0);
    long sum = 0;
    for (int s = 0; s < SLOTS; s++) {
        CHECK_EQ(slots[s], 1000 + moved_in[s]);
        sum += slots[s];
    }
    CHECK_EQ(sum, 1000L * SLOTS);
    free(w);
    free(t);
    return 0;
}

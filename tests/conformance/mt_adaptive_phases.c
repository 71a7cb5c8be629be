/* Workload phases that make the adaptive algorithm change its mind many times.
 *
 * For about a second (half of one at -O0: o0-div), the threads cycle every 40 ms through
 *  - "hot": every transaction increments one shared counter (all conflict: serial or gl_wt win),
 *  - "transfer": transactions move amounts between random slots of an array and, one time in
 *    four, read the whole array and check its sum (read-mostly: NOrec wins),
 *  - "bulk": each transaction checks that the thread's own block of 64 words is uniform and
 *    rewrites it with a new value (long writers: serial wins at 2 threads, so adaptive excludes
 *    readers and skips the drain, core/serial.c),
 * so the adaptive contention manager probes and switches among its modes while transactions of
 * the other mode may still be in flight. Invariants: the array's sum never changes (checked
 * inside transactions and at the end), the counter equals the number of committed increments,
 * each thread's private tally of transfers matches the slots' net flow, and every block is
 * uniform and holds its thread's last value. Under the other algorithms it is one more
 * mixed-conflict torture test.
 */
// TMTEST: o0-div=2
#include "harness.h"

#define SLOTS 64
#define BLOCK 64
#define PHASE_S 0.04

static long slots[SLOTS];
static long counter;
static long moved_in[SLOTS];
static long (*blocks)[BLOCK]; /* one per thread */
static int stop_flag;
static double t_start;

typedef struct {
    int id;
    long increments, bad_sums, bad_blocks, last_fill;
    long flow[SLOTS];
} worker_t;

static void *worker(void *arg)
{
    worker_t *w = arg;
    uint64_t rng = 0x1234567ULL + (uint64_t)w->id * 0x9E3779B97F4A7C15ULL;
    while (!__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE)) {
        long phase = ((long)((th_now() - t_start) / PHASE_S)) % 3;
        for (int k = 0; k < 64; k++) {
            if (phase == 0) {
                __transaction_atomic { counter++; }
                w->increments++;
                continue;
            }
            if (phase == 2) {
                long *b = blocks[w->id], v = w->last_fill + 1, odd = 0;
                __transaction_atomic {
                    long first = b[0];
                    odd = 0;
                    for (int i = 0; i < BLOCK; i++) {
                        odd += b[i] != first;
                        b[i] = v;
                    }
                }
                w->bad_blocks += odd;
                w->last_fill = v;
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
    blocks = calloc((size_t)n, sizeof *blocks);
    CHECK(w && t && blocks);
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
        bad += w[i].bad_sums + w[i].bad_blocks;
        for (int k = 0; k < BLOCK; k++)
            CHECK_EQ(blocks[i][k], w[i].last_fill);
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
    free(blocks);
    return 0;
}

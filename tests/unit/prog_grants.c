/* Known behaviour for test_bias_grants.sh: THREADS threads each run ITERS iterations of private
 * work (WORK rounds of a xorshift, ~2 ns each) followed by one short transaction on one of 16
 * shared records, the shape of STAMP's kmeans (a point's nearest centre, then the centre's
 * sums). WORK 0 makes the transactions back to back, the shape of a hot counter. WIDTH (1 if
 * not given, up to 16) is how many sums of the record each transaction adds to, as kmeans adds
 * a point's features to its centre's. Checks that every record's count and sums add up to
 * what the threads added.
 * Usage: prog_grants THREADS ITERS WORK [WIDTH] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define RECORDS 16
static struct {
    long count;
    long sum[16];
} records[RECORDS] __attribute__((aligned(64)));
static long iters;
static int work, width = 1;
static long added[64]; /* per thread: the sum of what it added */

static void *run(void *arg)
{
    long id = (long)arg;
    uint64_t x = (uint64_t)(id + 1) * 0x9e3779b97f4a7c15ull;
    long mine = 0;
    for (long i = 0; i < iters; i++) {
        long v = 0;
        for (int k = 0; k < work; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v += (long)(x & 1023);
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        unsigned r = (unsigned)(x >> 40) % RECORDS;
        __transaction_atomic {
            records[r].count++;
            for (int k = 0; k < width; k++)
                records[r].sum[k] += v + 1;
        }
        mine += v + 1;
    }
    added[id] = mine;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: prog_grants THREADS ITERS WORK [WIDTH]\n");
        return 2;
    }
    int threads = atoi(argv[1]);
    iters = atol(argv[2]);
    work = atoi(argv[3]);
    if (argc == 5)
        width = atoi(argv[4]);
    if (threads < 1 || threads > 64 || iters < 1 || work < 0 || width < 1 || width > 16) {
        fprintf(stderr, "prog_grants: THREADS 1-64, ITERS >= 1, WORK >= 0, WIDTH 1-16\n");
        return 2;
    }
    pthread_t t[64];
    for (long i = 0; i < threads; i++)
        if (pthread_create(&t[i], NULL, run, (void *)i) != 0) {
            fprintf(stderr, "prog_grants: pthread_create failed\n");
            return 2;
        }
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    long n = 0, s = 0, want = 0;
    for (int r = 0; r < RECORDS; r++) {
        n += records[r].count;
        s += records[r].sum[0];
        for (int k = 1; k < width; k++)
            if (records[r].sum[k] != records[r].sum[0]) {
                fprintf(stderr, "prog_grants: record %d: sum %d is %ld, sum 0 %ld\n", r, k,
                        records[r].sum[k], records[r].sum[0]);
                return 1;
            }
    }
    for (int i = 0; i < threads; i++)
        want += added[i];
    if (n != threads * iters || s != want) {
        fprintf(stderr, "prog_grants: count %ld (want %ld), sum %ld (want %ld)\n", n,
                threads * iters, s, want);
        return 1;
    }
    return 0;
}

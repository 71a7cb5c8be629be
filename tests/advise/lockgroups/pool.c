/* Tokens move between a pool and NB buckets (tests/advise/lockgroups.sh). Each lock has
 * sections the rewrite cannot restructure, so --apply makes each lock a lock group: those
 * sections stay plain code under it and the others become transactions that enter it.
 * - pool_lock: pool_take releases on an early return and in two other blocks; pool_put's lock
 *   call sits inside an expression whose result is tested; pool_check is a plain section.
 * - bucket_locks[NB]: bucket_begin returns holding the bucket's lock on success and
 *   bucket_end (another function) releases it; bucket_fill is a plain section.
 * The plain sections update two words that must stay equal with a pause in between; every
 * section checks them, and the run checks the totals at the end. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NB 8
#define TOTAL 1000

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t bucket_locks[NB];
static long pool = TOTAL, pool_out;
static long pool_in;                /* invariant: pool == TOTAL - pool_out + pool_in */
static long torn_pool;
static long bucket[NB], mirror[NB]; /* invariant: bucket[i] == mirror[i] */
static long torn_bucket[NB];

static void pause_a_little(void)
{
    for (volatile int k = 0; k < 64; k++)
        ;
}

static int pool_take(long n)
{
    pthread_mutex_lock(&pool_lock);
    if (pool < n) {
        pthread_mutex_unlock(&pool_lock);
        return 0;
    }
    pool -= n;
    pause_a_little();
    if (n > 1) {
        pool_out += n;
        pthread_mutex_unlock(&pool_lock);
    } else {
        pool_out += 1;
        pthread_mutex_unlock(&pool_lock);
    }
    return 1;
}

static void pool_put(long n)
{
    if (pthread_mutex_lock(&pool_lock) != 0)
        abort();
    pool += n;
    pause_a_little();
    pool_in += n;
    pthread_mutex_unlock(&pool_lock);
}

static long pool_check(void)
{
    long p;
    pthread_mutex_lock(&pool_lock);
    if (pool != TOTAL - pool_out + pool_in)
        torn_pool++;
    p = pool;
    pthread_mutex_unlock(&pool_lock);
    return p;
}

/* Returns holding bucket_locks[i] when the bucket has `need` tokens: bucket_end releases it. */
static int bucket_begin(int i, long need)
{
    pthread_mutex_lock(&bucket_locks[i]);
    if (bucket[i] != mirror[i])
        torn_bucket[i]++;
    if (bucket[i] < need) {
        pthread_mutex_unlock(&bucket_locks[i]);
        return 0;
    }
    return 1;
}

static void bucket_end(int i)
{
    pthread_mutex_unlock(&bucket_locks[i]);
}

static int bucket_drain(int i, long n)
{
    if (!bucket_begin(i, n))
        return 0;
    bucket[i] -= n;
    pause_a_little();
    mirror[i] -= n;
    bucket_end(i);
    return 1;
}

static void bucket_fill(int i, long n)
{
    pthread_mutex_lock(&bucket_locks[i]);
    if (bucket[i] != mirror[i])
        torn_bucket[i]++;
    bucket[i] += n;
    mirror[i] += n;
    pthread_mutex_unlock(&bucket_locks[i]);
}

static long rounds;

static void *worker(void *arg)
{
    unsigned seed = (unsigned)(size_t)arg * 2654435761u + 1;
    for (long r = 0; r < rounds; r++) {
        int i = (int)(rand_r(&seed) % NB);
        long n = 1 + (long)(rand_r(&seed) % 2);
        if (rand_r(&seed) % 2) {
            if (pool_take(n))
                bucket_fill(i, n);
        } else if (bucket_drain(i, n)) {
            pool_put(n);
        }
        if (r % 16 == 0)
            pool_check();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    rounds = argc > 2 ? atol(argv[2]) : 20000;
    pthread_t t[64];
    if (threads < 1 || threads > 64)
        return 2;
    pool_out = pool_in = torn_pool = 0; /* assigned: they stay plain longs (no tm_counter_t) */
    for (int i = 0; i < NB; i++)
        pthread_mutex_init(&bucket_locks[i], NULL);
    for (int k = 0; k < threads; k++)
        pthread_create(&t[k], NULL, worker, (void *)(size_t)k);
    for (int k = 0; k < threads; k++)
        pthread_join(t[k], NULL);
    long sum = pool_check(), torn = torn_pool;
    for (int i = 0; i < NB; i++) {
        sum += bucket[i];
        torn += torn_bucket[i] + (bucket[i] != mirror[i]);
        pthread_mutex_destroy(&bucket_locks[i]);
    }
    printf("pool %ld, tokens %ld of %d, torn %ld\n", pool, sum, TOTAL, torn);
    return sum == TOTAL && torn == 0 && pool == TOTAL - pool_out + pool_in ? 0 : 1;
}

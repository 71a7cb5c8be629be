/* bank: threads move money between accounts; audits read every account. One source, two builds:
 * -fgnu-tm (transactions, run on tmkit or libitm) and -DBANK_MUTEX (one pthread mutex).
 * Usage: bank [threads] [seconds] [accounts] [audit-percent]
 * Prints one line: key=value pairs; exits 1 if money was created or destroyed. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifdef BANK_MUTEX
static pthread_mutex_t bank_lock = PTHREAD_MUTEX_INITIALIZER;
#define TXN_BEGIN pthread_mutex_lock(&bank_lock); {
#define TXN_END } pthread_mutex_unlock(&bank_lock);
#define BANK_BUILD "mutex"
#else
#define TXN_BEGIN __transaction_atomic {
#define TXN_END }
#define BANK_BUILD "tm"
#endif

#define INITIAL 1000

static long *accounts;
static int n_accounts, audit_pct;
static atomic_int stop;
static atomic_long bad_audits;

typedef struct {
    uint64_t rng;
    long ops;
} worker;

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void *run(void *arg)
{
    worker *w = arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        uint64_t r = next_rand(&w->rng);
        if ((int)(r % 100) < audit_pct) {
            long total = 0;
            TXN_BEGIN
            for (int i = 0; i < n_accounts; i++)
                total += accounts[i];
            TXN_END
            if (total != (long)n_accounts * INITIAL)
                atomic_fetch_add(&bad_audits, 1);
        } else {
            int a = (int)((r >> 8) % (uint64_t)n_accounts), b = (int)((r >> 32) % (uint64_t)n_accounts);
            long amount = (long)(r >> 56) % 10;
            TXN_BEGIN
            accounts[a] -= amount;
            accounts[b] += amount;
            TXN_END
        }
        w->ops++;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    double seconds = argc > 2 ? atof(argv[2]) : 1.0;
    n_accounts = argc > 3 ? atoi(argv[3]) : 1024;
    audit_pct = argc > 4 ? atoi(argv[4]) : 1;
    if (threads < 1 || seconds <= 0 || n_accounts < 2 || audit_pct < 0 || audit_pct > 100) {
        fprintf(stderr, "usage: bank [threads>=1] [seconds>0] [accounts>=2] [audit%% 0-100]\n");
        return 2;
    }
    accounts = calloc((size_t)n_accounts, sizeof *accounts);
    for (int i = 0; i < n_accounts; i++)
        accounts[i] = INITIAL;
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    worker *w = calloc((size_t)threads, sizeof *w);
    for (int i = 0; i < threads; i++) {
        w[i].rng = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
        pthread_create(&t[i], NULL, run, &w[i]);
    }
    usleep((useconds_t)(seconds * 1e6));
    atomic_store(&stop, 1);
    long ops = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        ops += w[i].ops;
    }
    long total = 0;
    for (int i = 0; i < n_accounts; i++)
        total += accounts[i];
    int ok = total == (long)n_accounts * INITIAL && atomic_load(&bad_audits) == 0;
    printf("build=%s threads=%d seconds=%.2f accounts=%d ops=%ld ops_per_s=%.0f consistent=%d\n",
           BANK_BUILD, threads, seconds, n_accounts, ops, ops / seconds, ok);
    return ok ? 0 : 1;
}

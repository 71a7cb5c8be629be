/* bench.h: one benchmark source, two builds, one driver.
 *
 * Builds
 *   gcc -fgnu-tm            TXN_BEGIN/TXN_END open and close `__transaction_atomic`; TM_SAFE marks
 *                           functions called inside transactions. Runs on tmkit or on libitm.
 *   gcc -DBENCH_MUTEX       the same blocks take and release one global pthread mutex instead.
 * Inside a transaction, malloc and free are the transactional ones (GCC maps them to _ITM_malloc
 * and _ITM_free); in the mutex build they are plain calls under the lock.
 *
 * A program defines these hooks (static, in its own file) and calls bench_main() from main():
 *   bench_setup(threads)    after option parsing: build the shared state; return 0, or print why
 *                           the options do not fit and return nonzero (exit 2)
 *   bench_thread_init(t)    in the worker thread, before the timed part
 *   bench_op(t)             one operation (inlined into the timed loop)
 *   bench_check(ts, n)      after the run: 1 if the program's invariant holds
 *   bench_report(out)       extra " key=value" pairs for the result line (may print nothing)
 *
 * Driver options (plus the program's own, from its bench_option table):
 *   --threads N   worker threads (default 1)
 *   --seconds S   timed mode: run S seconds (default 1)
 *   --ops N       fixed mode: each thread runs exactly N operations (used under callgrind)
 *   --seed N      random seed (default 1); every thread derives its own stream from it
 * Options are parsed strictly: an unknown option, a missing or malformed value, a value out of
 * range or a positional argument prints the usage and exits 2. --help prints it and exits 0.
 *
 * Output: one line of key=value pairs on stdout:
 *   build=tm|mutex bench=NAME threads=N ops=TOTAL seconds=ELAPSED ops_per_s=X ns_per_op=Y
 *   <program options> <program extras> ok=0|1
 * ops_per_s counts all threads' operations per wall-clock second; ns_per_op is the mean time one
 * thread spends on one operation (threads * elapsed / ops). Exit 1 when the invariant fails.
 */
#ifndef TMKIT_BENCH_H
#define TMKIT_BENCH_H

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef BENCH_MUTEX
#define BENCH_BUILD "mutex"
extern pthread_mutex_t bench_lock;
#define TXN_BEGIN pthread_mutex_lock(&bench_lock); {
#define TXN_END } pthread_mutex_unlock(&bench_lock);
#define TM_SAFE
#else
#define BENCH_BUILD "tm"
#define TXN_BEGIN __transaction_atomic {
#define TXN_END }
#define TM_SAFE __attribute__((transaction_safe))
#endif

#define BENCH_CACHE_LINE 64

/* Per-thread state. Each sits on its own cache lines, so threads never share a line through it. */
typedef struct {
    _Alignas(BENCH_CACHE_LINE) int id;
    uint64_t rng;
    long ops;          /* operations completed (the driver counts them) */
    long count[4];     /* program-defined tallies (e.g. inserts, removes, hits) */
    void *local;       /* program-defined thread-private data */
    char pad[BENCH_CACHE_LINE];
} bench_thread;

typedef enum { BENCH_LONG, BENCH_DOUBLE, BENCH_CHOICE } bench_type;

/* One program option: --NAME VALUE. For BENCH_CHOICE, *value is the index into choices. */
typedef struct {
    const char *name;
    bench_type type;
    void *value;                  /* long * (BENCH_LONG, BENCH_CHOICE) or double * */
    double min, max;              /* inclusive range for BENCH_LONG / BENCH_DOUBLE */
    const char *const *choices;   /* NULL-terminated, for BENCH_CHOICE */
    const char *help;
} bench_option;

static int bench_setup(int threads);
static void bench_thread_init(bench_thread *t);
static inline void bench_op(bench_thread *t);
static int bench_check(bench_thread *ts, int n);
static void bench_report(FILE *out);

/* xorshift64*: small, fast, good enough to pick keys. Never called inside a transaction. */
static inline uint64_t bench_rand(bench_thread *t)
{
    uint64_t x = t->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    t->rng = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [0, n), n >= 1 (multiply-shift: no division, bias below 2^-32 for our n). */
static inline long bench_rand_below(bench_thread *t, long n)
{
    return (long)(((bench_rand(t) >> 32) * (uint64_t)n) >> 32);
}

/* Uniform in [0, 1). */
static inline double bench_rand_unit(bench_thread *t)
{
    return (double)(bench_rand(t) >> 11) * 0x1.0p-53;
}

/* A multiplicative hash spreading consecutive keys over buckets. */
static inline uint64_t bench_hash(long key)
{
    uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

static void *bench_xalloc(size_t size)
{
    size_t rounded = (size + BENCH_CACHE_LINE - 1) / BENCH_CACHE_LINE * BENCH_CACHE_LINE;
    void *p = aligned_alloc(BENCH_CACHE_LINE, rounded ? rounded : BENCH_CACHE_LINE);
    if (!p) {
        fprintf(stderr, "bench: out of memory (%zu bytes)\n", size);
        exit(2);
    }
    memset(p, 0, rounded ? rounded : BENCH_CACHE_LINE);
    return p;
}

/* ---- the driver (state and functions private to each program) ---- */

#ifdef BENCH_MUTEX
pthread_mutex_t bench_lock = PTHREAD_MUTEX_INITIALIZER;
#endif

static struct {
    const char *name;
    const bench_option *options;
    long threads, ops, seed;
    double seconds;
    pthread_barrier_t start;
    atomic_int stop;
} bench_cfg;

#include "bench_opts.h"
#include "timing.h"

static void *bench_worker(void *arg)
{
    bench_thread *t = arg;
    bench_thread_init(t);
    pthread_barrier_wait(&bench_cfg.start);
    /* t->ops counts completed operations; bench_op may read it (e.g. to make fresh values). */
    if (bench_cfg.ops > 0) {
        while (t->ops < bench_cfg.ops) {
            bench_op(t);
            t->ops++;
        }
    } else {
        /* Relaxed: the flag only ends the loop (pairs with the store in bench_main); the
         * results are published to main by pthread_join, not through it. */
        while (!atomic_load_explicit(&bench_cfg.stop, memory_order_relaxed)) {
            bench_op(t);
            t->ops++;
        }
    }
    return NULL;
}

static int bench_main(int argc, char **argv, const char *name, const bench_option *options)
{
    bench_cfg.name = name;
    bench_cfg.options = options;
    bench_cfg.threads = 1;
    bench_cfg.seconds = 1.0;
    bench_cfg.seed = 1;
    bench_parse(argc, argv);
    int n = (int)bench_cfg.threads;
    if (bench_setup(n) != 0) {
        bench_usage(stderr);
        return 2;
    }

    bench_thread *ts = bench_xalloc((size_t)n * sizeof *ts);
    pthread_t *tids = calloc((size_t)n, sizeof *tids);
    pthread_barrier_init(&bench_cfg.start, NULL, (unsigned)n + 1);
    for (int i = 0; i < n; i++) {
        ts[i].id = i;
        ts[i].rng = bench_hash(bench_cfg.seed * 1000003 + i + 1) | 1;
        if (pthread_create(&tids[i], NULL, bench_worker, &ts[i]) != 0) {
            fprintf(stderr, "%s: cannot create thread %d\n", name, i);
            return 2;
        }
    }
    pthread_barrier_wait(&bench_cfg.start);
    double t0 = bench_now();
    if (bench_cfg.ops == 0) {
        struct timespec d = {(time_t)bench_cfg.seconds,
                             (long)((bench_cfg.seconds - (double)(time_t)bench_cfg.seconds) * 1e9)};
        while (nanosleep(&d, &d) != 0 && errno == EINTR)
            ;
        atomic_store(&bench_cfg.stop, 1);
    }
    long ops = 0, least = -1;
    for (int i = 0; i < n; i++) {
        pthread_join(tids[i], NULL);
        ops += ts[i].ops;
        if (least < 0 || ts[i].ops < least)
            least = ts[i].ops;
    }
    double elapsed = bench_now() - t0;
    /* min_share: the slowest thread's operations over the mean (1 = even; a timed run in which
     * one thread starves the others reads near 0). Fixed --ops runs read 1 by construction. */
    double min_share = ops ? (double)least * n / (double)ops : 1.0;
    int ok = bench_check(ts, n);

    printf("build=%s bench=%s threads=%d ops=%ld seconds=%.3f ops_per_s=%.0f ns_per_op=%.2f "
           "min_share=%.3f",
           BENCH_BUILD, name, n, ops, elapsed, ops / elapsed, ops ? n * elapsed * 1e9 / ops : 0.0,
           min_share);
    for (const bench_option *o = options; o && o->name; o++) {
        if (o->type == BENCH_LONG)
            printf(" %s=%ld", o->name, *(long *)o->value);
        else if (o->type == BENCH_DOUBLE)
            printf(" %s=%g", o->name, *(double *)o->value);
        else
            printf(" %s=%s", o->name, o->choices[*(long *)o->value]);
    }
    bench_report(stdout);
    printf(" ok=%d\n", ok);
    pthread_barrier_destroy(&bench_cfg.start);
    free(tids);
    free(ts);
    return ok ? 0 : 1;
}

#endif

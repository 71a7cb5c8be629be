/* Conformance-test harness: every test is one program that exits 0 when every CHECK holds.
 *
 * Environment the runner sets:
 *   EXPECT_RUNTIME=tmkit|libitm  the harness fails the test if another libitm.so.1 served it,
 *                                so a broken library path can never make a test pass silently.
 *   TEST_THREADS=N               threads for concurrency tests (default 4: more than the 2 cores).
 *   TEST_SCALE=N                 multiplies iteration counts (default 1) for longer torture runs.
 */
#ifndef TMKIT_TEST_HARNESS_H
#define TMKIT_TEST_HARNESS_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <stdarg.h>

#include "itm_abi_decl.h"

/* Reports a state that must never be seen inside a transaction and exits at once, from inside
 * the transaction (transaction_pure: no barrier, no abort): a doomed attempt's view fails it
 * too, which is how the opacity tests check what attempts see, not only what commits. */
static __attribute__((transaction_pure, noinline, unused, format(printf, 1, 2))) void
th_tx_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("inside a transaction: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
    _exit(1);
}

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);  \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

#define CHECK_EQ(a, b)                                                                \
    do {                                                                              \
        long long th_a_ = (long long)(a), th_b_ = (long long)(b);                     \
        if (th_a_ != th_b_) {                                                         \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (%lld != %lld)\n",      \
                    __FILE__, __LINE__, #a, #b, th_a_, th_b_);                        \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

static inline long th_env_long(const char *name, long dflt)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return dflt;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v <= 0) {
        fprintf(stderr, "harness: %s=%s is not a positive integer\n", name, s);
        exit(2);
    }
    return v;
}

/* Number of worker threads for concurrency tests. */
static inline int th_threads(void) { return (int)th_env_long("TEST_THREADS", 4); }

/* Iteration count scaled by TEST_SCALE and divided by TEST_SCALE_DIV (at least 1): the runs
 * under valgrind and under GCC's libitm set the divisor a test asks for (tests/CMakeLists.txt,
 * valgrind-div= and libitm-div=), the same code paths in fewer rounds. */
static inline long th_iters(long base)
{
    long n = base * th_env_long("TEST_SCALE", 1) / th_env_long("TEST_SCALE_DIV", 1);
    return n > 0 ? n : 1;
}

static inline double th_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Checks that the runtime the runner asked for is the one that serves this process. */
static inline void th_check_runtime(void)
{
    const char *want = getenv("EXPECT_RUNTIME");
    const char *have = _ITM_libraryVersion();
    int is_tmkit = have && strstr(have, "tmkit") != NULL;
    if (want && strcmp(want, "tmkit") == 0 && !is_tmkit) {
        fprintf(stderr, "harness: expected tmkit, got libitm '%s'\n", have ? have : "?");
        exit(3);
    }
    if (want && strcmp(want, "libitm") == 0 && is_tmkit) {
        fprintf(stderr, "harness: expected the system libitm, got '%s'\n", have);
        exit(3);
    }
}

/* Runs fn(i) on n threads, i = 0..n-1, and joins them. */
static inline void th_run(int n, void *(*fn)(void *))
{
    pthread_t *t = (pthread_t *)calloc((size_t)n, sizeof *t);
    CHECK(t != NULL);
    for (int i = 0; i < n; i++)
        CHECK(pthread_create(&t[i], NULL, fn, (void *)(intptr_t)i) == 0);
    for (int i = 0; i < n; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    free(t);
}

/* Cheap per-thread pseudo-random numbers (xorshift64*). */
static inline uint64_t th_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ULL;
}

#endif

/* micro: the cost of one small transaction, one mode at a time.
 *   empty     a transaction whose body only calls an opaque empty function (GCC drops a truly
 *             empty __transaction_atomic; the call keeps begin and commit)
 *   reads     read --n words of an array and sum them (the words are all 1: the sum must be n)
 *   writes    write one fresh value to --n words (afterwards every word of an array is equal)
 *   counter   increment one shared counter (afterwards it equals the number of operations)
 *   disjoint  each thread increments its own counter, alone on its cache line
 *   atomic    each thread adds to its own counter (alone on its line) with tm_atomic_fetch_add
 *             in plain code, no transaction (the mutex build: the hardware's __atomic_fetch_add):
 *             what a reference count costs outside transactions, and whether it scales
 *   ring      the threads pass a token round: each waits for its turn by reading the token in
 *             one-load transactions, a spin wait (as PARSEC's TM barrier waits, and
 *             condition variables that became busy waits), then passes it on in a
 *             transaction. What one hand-off costs when every other thread keeps taking
 *             and releasing the lock or the serial lock as it spins: the latency of a
 *             waiter, which a lock that favours its holder (or sleeps its waiters for a
 *             timer slack) multiplies. ops counts hand-offs; afterwards the token equals them.
 * --array private gives each thread its own array for reads/writes; shared makes them all use one.
 * --promise 1 makes writes/counter/disjoint transactions call tm_no_privatization() (tmkit.h): their
 * commits then skip the privatization wait for other threads' transactions.
 */
#include "bench.h"
#ifndef BENCH_MUTEX
#include <tmkit.h>
#define PROMISE_NO_PRIVATIZATION() tm_no_privatization()
#else
#define PROMISE_NO_PRIVATIZATION() ((void)0)
#endif

static const char *const modes[] = {"empty",    "reads",  "writes", "counter",
                                    "disjoint", "atomic", "ring",   NULL};
enum { EMPTY, READS, WRITES, COUNTER, DISJOINT, ATOMIC, RING };
static const char *const arrays[] = {"private", "shared", NULL};
enum { PRIVATE, SHARED };

static long mode = EMPTY, n_words = 16, array = PRIVATE, promise = 0;

static const bench_option options[] = {
    {"mode", BENCH_CHOICE, &mode, 0, 0, modes, "what each transaction does"},
    {"n", BENCH_LONG, &n_words, 1, 1 << 20, NULL, "words read or written per transaction"},
    {"array", BENCH_CHOICE, &array, 0, 0, arrays, "reads/writes: one array per thread or one shared"},
    {"promise", BENCH_LONG, &promise, 0, 1, NULL, "1: writing transactions promise not to privatize"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

typedef struct {
    _Alignas(BENCH_CACHE_LINE) long value;
    char pad[BENCH_CACHE_LINE - sizeof(long)];
} padded_counter;

static long *shared_words;
static padded_counter shared_counter;
static padded_counter *own_counter; /* one per thread */
static padded_counter ring_token;   /* ring: hand-offs so far; thread (token % threads) holds it */
static int ring_threads;

TM_SAFE __attribute__((noipa)) static void nothing(void)
{
}

TM_SAFE static long sum_words(const long *w, long n)
{
    long sum = 0;
    for (long i = 0; i < n; i++)
        sum += w[i];
    return sum;
}

TM_SAFE static void fill_words(long *w, long n, long value)
{
    for (long i = 0; i < n; i++)
        w[i] = value;
}

static long *new_words(void)
{
    long *w = bench_xalloc((size_t)n_words * sizeof *w);
    for (long i = 0; i < n_words; i++)
        w[i] = 1;
    return w;
}

static int bench_setup(int threads)
{
    shared_words = new_words();
    own_counter = bench_xalloc((size_t)threads * sizeof *own_counter);
    ring_threads = threads;
    return 0;
}

static void bench_thread_init(bench_thread *t)
{
    t->local = array == SHARED ? shared_words : new_words();
}

/* ring: waits for this thread's turn, then passes the token on; false if the run ended first
 * (the timed run's stop flag: the others may have stopped passing it). */
static inline int ring_turn(bench_thread *t)
{
    long token;
    for (;;) {
        TXN_BEGIN
        token = ring_token.value;
        TXN_END
        if (token % ring_threads == t->id)
            break;
        /* relaxed: only ends the wait (as the driver's loop reads it) */
        if (atomic_load_explicit(&bench_cfg.stop, memory_order_relaxed))
            return 0;
    }
    TXN_BEGIN
    ring_token.value++;
    TXN_END
    return 1;
}

/* count[0]: reads whose sum was wrong; count[1]: the last value this thread wrote; count[2]:
 * ring turns the end of the run cut short (counted in ops by the driver, not passed on). */
static inline void bench_op(bench_thread *t)
{
    long *w = t->local;
    switch (mode) {
    case EMPTY:
        TXN_BEGIN
        nothing();
        TXN_END
        break;
    case READS: {
        long sum;
        TXN_BEGIN
        sum = sum_words(w, n_words);
        TXN_END
        if (sum != n_words)
            t->count[0]++;
        break;
    }
    case WRITES: {
        long v = (t->ops << 10 | t->id) + 2;
        TXN_BEGIN
        if (promise)
            PROMISE_NO_PRIVATIZATION();
        fill_words(w, n_words, v);
        TXN_END
        t->count[1] = v;
        break;
    }
    case COUNTER:
        TXN_BEGIN
        if (promise)
            PROMISE_NO_PRIVATIZATION();
        shared_counter.value++;
        TXN_END
        break;
    case DISJOINT: {
        padded_counter *c = &own_counter[t->id];
        TXN_BEGIN
        if (promise)
            PROMISE_NO_PRIVATIZATION();
        c->value++;
        TXN_END
        break;
    }
    case ATOMIC:
#ifdef BENCH_MUTEX
        __atomic_fetch_add(&own_counter[t->id].value, 1, __ATOMIC_SEQ_CST);
#else
        tm_atomic_fetch_add(&own_counter[t->id].value, 1L);
#endif
        break;
    case RING:
        if (!ring_turn(t))
            t->count[2]++;
        break;
    }
}

static int all_equal(const long *w, long want)
{
    for (long i = 0; i < n_words; i++)
        if (w[i] != want)
            return 0;
    return 1;
}

static int bench_check(bench_thread *ts, int n)
{
    long total = 0;
    for (int i = 0; i < n; i++)
        total += ts[i].ops;
    for (int i = 0; i < n; i++) {
        if (ts[i].count[0] != 0)
            return 0;
        switch (mode) {
        case READS:
            if (!all_equal(ts[i].local, 1))
                return 0;
            break;
        case WRITES:
            if (array == PRIVATE && ts[i].ops > 0 && !all_equal(ts[i].local, ts[i].count[1]))
                return 0;
            break;
        case DISJOINT:
        case ATOMIC:
            if (own_counter[i].value != ts[i].ops)
                return 0;
            break;
        }
    }
    if (mode == WRITES && array == SHARED && !all_equal(shared_words, shared_words[0]))
        return 0;
    if (mode == COUNTER && shared_counter.value != total)
        return 0;
    if (mode == RING) {
        long cut = 0;
        for (int i = 0; i < n; i++)
            cut += ts[i].count[2];
        if (ring_token.value != total - cut)
            return 0;
    }
    return 1;
}

static void bench_report(FILE *out)
{
    (void)out;
}

int main(int argc, char **argv)
{
    return bench_main(argc, argv, "micro", options);
}

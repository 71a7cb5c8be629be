/* Proxy privatization: one thread privatizes on behalf of another.
 *
 * Writers run transactions that read the shared pointer `live` and, when it names a box,
 * increment the box's two counters (a and b, always equal in committed state) in place and then
 * linger inside the transaction (a transaction_pure delay), so that an attempt doomed by a later
 * commit keeps its uncommitted writes in memory for a while. Each round a proxy thread takes the
 * box away from the writers and hands it to a consumer in ONE transaction (`live = NULL;
 * handed = box`). The consumer polls `handed` with read-only transactions; once it gets the box
 * it owns it and reads it without transactions. A runtime is privatization-safe for this only if
 * the consumer's read-only commit, too, is ordered after the end of every attempt the proxy's
 * commit doomed: a doomed writer may still hold an uncommitted increment in the box, and rolls
 * it back later. The consumer checks, over ~50 us of plain reads, that a == b, that they do not
 * change, and at the end that the box holds exactly the increments writers committed to it.
 * (GCC's libitm testsuite has a test of the same hazard, priv-1.c; tmkit's orec_eager failed it
 * by releasing its orecs before its quiescence ended: the consumer read the hand-off at once.)
 */
/* Not under valgrind: under NOrec and gl_wt a doomed writer may still load from the box after
 * the consumer freed it. That load is harmless by design (its value never reaches the program:
 * both check their clock after every load, and core/faultguard.c restarts a load that faults),
 * but memcheck reports it. */
#include <sched.h>

#include "harness.h"

#define MAX_WRITERS 64

typedef struct box {
    long a, b;
    long round;
} box;

static box *live;   /* what the writers increment */
static box *handed; /* the proxy's hand-off to the consumer */
static int stop_flag;
static long committed[MAX_WRITERS]; /* per writer, for the current round (reset by the proxy) */

static __attribute__((transaction_pure, noinline)) void linger(unsigned n)
{
    for (volatile unsigned i = 0; i < n; i++) {
    }
}

static void *writer(void *arg)
{
    int id = (int)(intptr_t)arg;
    uint64_t rng = 0x51ED270B1ULL + (uint64_t)id * 0x9E3779B97F4A7C15ULL;
    while (!__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE)) {
        unsigned pause = 500 + (unsigned)(th_rand(&rng) % 8000);
        long round = -1;
        __transaction_atomic {
            box *p = live;
            if (p) {
                p->a++;
                p->b++;
                round = p->round;
                linger(pause);
            }
        }
        if (round >= 0)
            __atomic_fetch_add(&committed[id], 1, __ATOMIC_RELAXED);
        else
            sched_yield();
    }
    return NULL;
}

/* The consumer: gets the box through read-only transactions, then owns it. Returns the box. */
static box *consume(long round)
{
    box *p = NULL;
    for (unsigned spins = 0; !p; spins++) {
        __transaction_atomic { p = handed; }
        if (!p && (spins & 255) == 255)
            sched_yield();
    }
    volatile box *v = p;
    long a0 = v->a, b0 = v->b;
    if (a0 != b0 || v->round != round) {
        fprintf(stderr, "round %ld: the handed-off box reads a=%ld b=%ld round=%ld\n", round, a0,
                b0, v->round);
        exit(1);
    }
    double until = th_now() + 50e-6;
    do {
        if (v->a != a0 || v->b != b0) {
            fprintf(stderr, "round %ld: the private box changed from a=b=%ld to a=%ld b=%ld (a "
                            "doomed writer's increment was visible, then undone)\n",
                    round, a0, v->a, v->b);
            exit(1);
        }
    } while (th_now() < until);
    return p;
}

typedef struct {
    int rounds;
} proxy_args;

static void *proxy(void *arg)
{
    proxy_args *pa = arg;
    uint64_t rng = 0x7A11EDULL;
    for (int r = 0; r < pa->rounds; r++) {
        box *b = calloc(1, sizeof *b);
        CHECK(b != NULL);
        b->round = r;
        __transaction_atomic { live = b; }
        /* let the writers in: until one increment committed (at most 50 ms: a loaded machine
         * may not run them), then a random 0-400 us more, so the hand-off meets attempts at
         * any stage */
        double give_up = th_now() + 0.05;
        for (long n = 0; n == 0 && th_now() < give_up;) {
            sched_yield();
            __transaction_atomic { n = b->a; }
        }
        double until = th_now() + (double)(th_rand(&rng) % 400) * 1e-6;
        while (th_now() < until)
            sched_yield();
        __transaction_atomic {
            handed = live;
            live = NULL;
        }
        /* the consumer (main) empties the slot once it has checked the box */
        for (;;) {
            box *h;
            __transaction_atomic { h = handed; }
            if (!h)
                break;
            sched_yield();
        }
    }
    return NULL;
}

int main(void)
{
    th_check_runtime();
    int writers = th_threads() - 1;
    if (writers < 1)
        writers = 1;
    if (writers > MAX_WRITERS)
        writers = MAX_WRITERS;
    int rounds = (int)th_iters(60);
    pthread_t t[MAX_WRITERS], pt;
    for (int i = 0; i < writers; i++)
        CHECK(pthread_create(&t[i], NULL, writer, (void *)(intptr_t)i) == 0);
    proxy_args pa = {rounds};
    CHECK(pthread_create(&pt, NULL, proxy, &pa) == 0);

    long total = 0, busy = 0;
    for (int r = 0; r < rounds; r++) {
        box *b = consume(r);
        total += b->a;
        busy += b->a > 0;
        free(b);
        /* the proxy waits for this before the next box: the hand-off slot is empty again */
        __transaction_atomic { handed = NULL; }
    }
    __atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
    CHECK(pthread_join(pt, NULL) == 0);
    for (int i = 0; i < writers; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    long sum = 0;
    for (int i = 0; i < writers; i++)
        sum += committed[i];
    /* every committed increment is in some box, and only those */
    CHECK_EQ(total, sum);
    CHECK(busy > rounds / 4);
    printf("mt_proxy_privatize: %d writers, %d rounds, %ld increments, %ld rounds with some\n",
           writers, rounds, total, busy);
    return 0;
}

/* Known behaviour for test_waits.sh. First a gate: 80 threads (more than the runtime's 64
 * waiter slots, ext/ext.h) wait in tm_retry until the main thread opens the gate, 3 times over;
 * every thread must pass every time (a lost wake-up hangs, and the script's timeout says so).
 * Then two threads pass a token back and forth R times, each
 * waiting in tm_retry for its turn (so at most one thread waits at a time, and the count of
 * waiters drops to 0 at every hand-off), then thread B ends and thread A runs N transactions
 * alone (site "alone"). The token's final value and a counter must be exact.
 * What the script checks with it: the runtime does not force a barrier on every thread at each
 * wait (membarrier calls, counted by the count_sleeps shim, far below the waits), and once the
 * waits are over the lone thread's transactions get the bias back (uninstrumented).
 * Usage: prog_waits R N */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <tmkit.h>
#include <unistd.h>

static long token, rounds, alone_n, counter;

#define GATE_THREADS 80
#define GATE_ROUNDS 3
static long gate, passed;

static void *gate_thread(void *arg)
{
    (void)arg;
    for (long r = 1; r <= GATE_ROUNDS; r++) {
        tm_atomic_retry {
            if (gate < r)
                tm_retry();
        }
        __atomic_fetch_add(&passed, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

/* Opens the gate once every thread has passed the previous round and, likely, waits again. */
static int run_gate(void)
{
    pthread_t t[GATE_THREADS];
    for (int i = 0; i < GATE_THREADS; i++)
        if (pthread_create(&t[i], NULL, gate_thread, NULL) != 0)
            return -1;
    for (long r = 1; r <= GATE_ROUNDS; r++) {
        while (__atomic_load_n(&passed, __ATOMIC_RELAXED) < (r - 1) * GATE_THREADS)
            usleep(1000);
        usleep(20000); /* let them reach tm_retry */
        __transaction_atomic { gate = r; }
    }
    for (int i = 0; i < GATE_THREADS; i++)
        pthread_join(t[i], NULL);
    return passed == GATE_ROUNDS * GATE_THREADS ? 0 : -1;
}

/* Thread `me` (0 or 1) takes turns 2k + me. */
static void take_turns(long me)
{
    for (long t = me; t < 2 * rounds; t += 2) {
        tm_atomic_retry {
            if (token != t)
                tm_retry();
            token = t + 1;
        }
    }
}

static void *thread_b(void *arg)
{
    (void)arg;
    take_turns(1);
    return NULL;
}

static __attribute__((noinline)) void alone(void)
{
    for (long i = 0; i < alone_n; i++)
        __transaction_atomic { counter++; }
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    rounds = atol(argv[1]);
    alone_n = atol(argv[2]);
    if (run_gate() != 0) {
        fprintf(stderr, "gate: %ld passes, expected %d\n", passed, GATE_ROUNDS * GATE_THREADS);
        return 1;
    }
    pthread_t b;
    if (pthread_create(&b, NULL, thread_b, NULL) != 0)
        return 2;
    take_turns(0);
    pthread_join(b, NULL);
    alone();
    if (token != 2 * rounds || counter != alone_n) {
        fprintf(stderr, "token %ld (expected %ld), counter %ld (expected %ld)\n", token,
                2 * rounds, counter, alone_n);
        return 1;
    }
    return 0;
}

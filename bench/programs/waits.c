/* waits: what blocking costs, transactions against a mutex with condition variables
 * (docs/waiting.md). One source, two builds:
 *   waits-tm    gcc -fgnu-tm, include/tmkit.h: --impl retry (tm_retry), cond (tm_cond_t) or
 *               busy (a transaction re-run in a loop until the condition holds: what luaproc's
 *               port did without a way to block); runs on tmkit or on libitm (the header's
 *               fallback then polls);
 *   waits-cond  pthread mutex + condition variables (--impl cond only).
 * Modes:
 *   idle      --threads N threads wait on an empty queue for --seconds S; prints the process's
 *             CPU time over those S seconds as a percentage of one core (cpu_pct);
 *   pingpong  two threads hand a token back and forth --rounds R times; prints ns per hand-off;
 *   queue     one producer, --threads N consumers, a bounded queue of --cap slots, --items K
 *             items; prints items per second.
 * Output: one line, `bench=waits build=tm|cond impl=.. mode=.. threads=N <figures> ok=1`; exit 1
 * if an item was lost or duplicated. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#ifndef WAITS_COND
#include <tmkit.h>
#define BUILD "tm"
#else
#define BUILD "cond"
#endif

#define MAXCAP 1024

static long q[MAXCAP], q_head, q_tail, cap = 64;
static long turn; /* pingpong: whose turn, 0 or 1 */
static long sum_popped, n_popped;
static enum { RETRY, COND, BUSY } impl = COND;
#ifndef WAITS_COND
static tm_cond_t not_empty = TM_COND_INITIALIZER, not_full = TM_COND_INITIALIZER,
                 turn_changed = TM_COND_INITIALIZER;
#else
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER, not_full = PTHREAD_COND_INITIALIZER,
                      turn_changed = PTHREAD_COND_INITIALIZER;
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu_seconds(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

/* ---- the queue and the token, in each implementation ---- */

static void push(long v)
{
#ifndef WAITS_COND
    if (impl == BUSY) {
        for (int done = 0; !done;)
            __transaction_atomic {
                if (q_tail - q_head < cap) {
                    q[q_tail++ % cap] = v;
                    done = 1;
                }
            }
        return;
    }
    tm_atomic_retry {
        if (q_tail - q_head == cap) {
            if (impl == RETRY)
                tm_retry();
            else
                tm_cond_wait(&not_full);
        }
        q[q_tail++ % cap] = v;
        if (impl == COND)
            tm_cond_signal(&not_empty);
    }
#else
    pthread_mutex_lock(&m);
    while (q_tail - q_head == cap)
        pthread_cond_wait(&not_full, &m);
    q[q_tail++ % cap] = v;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&m);
#endif
}

static long pop(void)
{
    long v = 0;
#ifndef WAITS_COND
    if (impl == BUSY) {
        for (int done = 0; !done;)
            __transaction_atomic {
                if (q_tail != q_head) {
                    v = q[q_head++ % cap];
                    done = 1;
                }
            }
        return v;
    }
    tm_atomic_retry {
        if (q_tail == q_head) {
            if (impl == RETRY)
                tm_retry();
            else
                tm_cond_wait(&not_empty);
        }
        v = q[q_head++ % cap];
        if (impl == COND)
            tm_cond_signal(&not_full);
    }
#else
    pthread_mutex_lock(&m);
    while (q_tail == q_head)
        pthread_cond_wait(&not_empty, &m);
    v = q[q_head++ % cap];
    pthread_cond_signal(&not_full);
    pthread_mutex_unlock(&m);
#endif
    return v;
}

/* Waits for my turn, then gives it to the other thread. */
static void take_turn(long me)
{
#ifndef WAITS_COND
    if (impl == BUSY) {
        for (int done = 0; !done;)
            __transaction_atomic {
                if (turn == me) {
                    turn = 1 - me;
                    done = 1;
                }
            }
        return;
    }
    tm_atomic_retry {
        if (turn != me) {
            if (impl == RETRY)
                tm_retry();
            else
                tm_cond_wait(&turn_changed);
        }
        turn = 1 - me;
        if (impl == COND)
            tm_cond_signal(&turn_changed);
    }
#else
    pthread_mutex_lock(&m);
    while (turn != me)
        pthread_cond_wait(&turn_changed, &m);
    turn = 1 - me;
    pthread_cond_signal(&turn_changed);
    pthread_mutex_unlock(&m);
#endif
}

/* ---- the modes ---- */

static long rounds = 100000, items = 1000000;

static void *consumer(void *arg)
{
    long n = (long)(intptr_t)arg, s = 0;
    for (long i = 0; i < n; i++)
        s += pop();
    __atomic_fetch_add(&sum_popped, s, __ATOMIC_RELAXED);
    __atomic_fetch_add(&n_popped, n, __ATOMIC_RELAXED);
    return NULL;
}

static void *pinger(void *arg)
{
    long me = (long)(intptr_t)arg;
    for (long i = 0; i < rounds; i++)
        take_turn(me);
    return NULL;
}

static void usage(void)
{
    fprintf(stderr, "usage: waits-" BUILD " --mode idle|pingpong|queue [--impl retry|cond|busy] "
                    "[--threads N] [--seconds S] [--rounds R] [--items K] [--cap C]\n");
    exit(2);
}

static long num(const char *s, long lo, long hi)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        usage();
    return v;
}

int main(int argc, char **argv)
{
    const char *mode = NULL;
    long threads = 1;
    double seconds = 2;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            usage();
        const char *o = argv[i], *v = argv[++i];
        if (!strcmp(o, "--mode"))
            mode = v;
        else if (!strcmp(o, "--impl"))
            impl = !strcmp(v, "retry") ? RETRY : !strcmp(v, "cond") ? COND : !strcmp(v, "busy") ? BUSY : (usage(), COND);
        else if (!strcmp(o, "--threads"))
            threads = num(v, 1, 256);
        else if (!strcmp(o, "--seconds"))
            seconds = (double)num(v, 1, 3600);
        else if (!strcmp(o, "--rounds"))
            rounds = num(v, 1, 1000000000);
        else if (!strcmp(o, "--items"))
            items = num(v, 1, 1000000000);
        else if (!strcmp(o, "--cap"))
            cap = num(v, 1, MAXCAP);
        else
            usage();
    }
#ifdef WAITS_COND
    if (impl != COND)
        usage();
#endif
    if (!mode)
        usage();
    static const char *const names[] = {"retry", "cond", "busy"};
    int ok;
    pthread_t t[257];
    printf("bench=waits build=" BUILD " impl=%s mode=%s threads=%ld", names[impl], mode, threads);
    if (!strcmp(mode, "idle")) {
        for (long i = 0; i < threads; i++)
            pthread_create(&t[i], NULL, consumer, (void *)(intptr_t)1);
        usleep(100000); /* all asleep (or spinning) by now */
        double c0 = cpu_seconds(), t0 = now();
        usleep((useconds_t)(seconds * 1e6));
        double c1 = cpu_seconds(), t1 = now();
        for (long i = 0; i < threads; i++)
            push(i + 1);
        for (long i = 0; i < threads; i++)
            pthread_join(t[i], NULL);
        printf(" seconds=%.3f cpu_pct=%.3f", t1 - t0, (c1 - c0) / (t1 - t0) * 100);
        ok = n_popped == threads && sum_popped == threads * (threads + 1) / 2;
        printf(" ok=%d\n", ok);
    } else if (!strcmp(mode, "pingpong")) {
        double t0 = now();
        pthread_create(&t[0], NULL, pinger, (void *)(intptr_t)0);
        pthread_create(&t[1], NULL, pinger, (void *)(intptr_t)1);
        pthread_join(t[0], NULL);
        pthread_join(t[1], NULL);
        double el = now() - t0;
        ok = turn == 0;
        printf(" rounds=%ld seconds=%.3f ns_per_handoff=%.1f ok=%d\n", rounds, el,
               el * 1e9 / (2.0 * (double)rounds), ok);
    } else if (!strcmp(mode, "queue")) {
        double t0 = now();
        for (long i = 0; i < threads; i++)
            pthread_create(&t[i], NULL, consumer,
                           (void *)(intptr_t)(items / threads + (i < items % threads)));
        for (long v = 1; v <= items; v++)
            push(v);
        for (long i = 0; i < threads; i++)
            pthread_join(t[i], NULL);
        double el = now() - t0;
        ok = n_popped == items && sum_popped == items * (items + 1) / 2;
        printf(" items=%ld cap=%ld seconds=%.3f items_per_s=%.0f ok=%d\n", items, cap, el,
               (double)items / el, ok);
    } else {
        usage();
    }
    return ok ? 0 : 1;
}

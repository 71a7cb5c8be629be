/* tm_retry: a bounded queue between producers and consumers, where a full queue makes a producer
 * wait and an empty one a consumer (tm_atomic_retry + tm_retry; include/tmkit/wait.h). Half the
 * threads produce the items 1..N between them, half consume; every item must be consumed
 * exactly once (a bitmap), and the queue ends empty. On tmkit the waits sleep until a commit
 * changes what they read; on GCC's libitm they poll (the header's fallback). A small capacity
 * makes both sides wait often. */
// TMTEST: threads=2
// TMTEST: libitm-div=10
// TMTEST: o0-div=4
#include "harness.h"
#include <tmkit.h>

#define CAP 16

static long ring[CAP];
static long head, tail; /* head: next to pop; tail: next to push */
static long n_items;
static unsigned char *seen;
static long produced_by[64], consumed_by[64];
static int producers, consumers;

static void *producer(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (long v = 1 + id; v <= n_items; v += producers) {
        tm_atomic_retry {
            if (tail - head == CAP)
                tm_retry();
            ring[tail % CAP] = v;
            tail++;
        }
        produced_by[id]++;
    }
    return NULL;
}

/* Waits in a callee, on behalf of the caller's transaction. */
TM_MAY_RETRY static long pop(void)
{
    if (tail == head)
        tm_retry();
    long v = ring[head % CAP];
    head++;
    return v;
}

static void *consumer(void *arg)
{
    int id = (int)(intptr_t)arg;
    long share = n_items / consumers + (id - producers < n_items % consumers);
    for (long i = 0; i < share; i++) {
        long v = 0;
        tm_atomic_retry { v = pop(); }
        CHECK(v >= 1 && v <= n_items);
        CHECK(__atomic_fetch_add(&seen[v], 1, __ATOMIC_RELAXED) == 0); /* not twice */
        consumed_by[id]++;
    }
    return NULL;
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    return id < producers ? producer(arg) : consumer(arg);
}

int main(void)
{
    th_check_runtime();
    int nt = th_threads();
    if (nt < 2)
        nt = 2;
    CHECK(nt <= 64);
    producers = nt / 2;
    consumers = nt - producers;
    /* 250,000 items through a 16-slot queue: it fills and drains ~15,000 times a run, and each
     * time a producer or a consumer waits and is woken. 1,000,000 took 3-7 s a run (41 runs in
     * make test) and asserted nothing more. */
    n_items = th_iters(250000);
    seen = (unsigned char *)calloc((size_t)n_items + 1, 1);
    CHECK(seen != NULL);
    th_run(nt, worker);
    CHECK_EQ(head, n_items);
    CHECK_EQ(tail, n_items);
    for (long v = 1; v <= n_items; v++)
        CHECK_EQ(seen[v], 1);
    long p = 0, c = 0;
    for (int i = 0; i < nt; i++) {
        p += produced_by[i];
        c += consumed_by[i];
    }
    CHECK_EQ(p, n_items);
    CHECK_EQ(c, n_items);
    free(seen);
    puts("ok");
    return 0;
}

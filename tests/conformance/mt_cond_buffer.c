/* tm_cond_t: a bounded buffer as it is written with a mutex and two condition variables, moved
 * to transactions with the structure kept: a producer waits on `not_full` while the buffer is
 * full and signals `not_empty` after a push; a consumer the reverse (tm_cond_wait,
 * tm_cond_signal inside the transaction: the signal takes effect at commit). Items carry a
 * producer id and a sequence number: each consumer checks that every producer's items arrive
 * in order (one buffer, FIFO), and at the end every item was consumed exactly once. A last
 * round has each consumer wait with a deadline on an empty buffer (tm_cond_wait_until): it must
 * time out, after at least the wait asked for. */
// TMTEST: threads=2
// TMTEST: libitm-div=4
// TMTEST: o0-div=4
#include "harness.h"
#include <tmkit.h>

#define CAP 8
#define MAXT 64

static long buf[CAP];
static long count, rd, wr;
static tm_cond_t not_empty = TM_COND_INITIALIZER, not_full = TM_COND_INITIALIZER;
static long per_producer;
static int producers, consumers;
static long got[MAXT][MAXT]; /* got[consumer][producer]: items of that producer seen */
static long last_seq[MAXT][MAXT];

static void *producer(int id)
{
    for (long s = 1; s <= per_producer; s++) {
        tm_atomic_retry {
            if (count == CAP)
                tm_cond_wait(&not_full);
            buf[wr] = (long)id << 32 | s;
            wr = (wr + 1) % CAP;
            count++;
            tm_cond_signal(&not_empty);
        }
    }
    return NULL;
}

static void *consumer(int id)
{
    long share = per_producer * producers / consumers +
                 (id - producers < per_producer * producers % consumers);
    for (long i = 0; i < share; i++) {
        long v = 0;
        tm_atomic_retry {
            if (count == 0)
                tm_cond_wait(&not_empty);
            v = buf[rd];
            rd = (rd + 1) % CAP;
            count--;
            tm_cond_signal(&not_full);
        }
        int p = (int)(v >> 32);
        long s = v & 0xffffffff;
        CHECK(p >= 0 && p < producers);
        CHECK(s > last_seq[id][p]); /* FIFO: a producer's items in order */
        last_seq[id][p] = s;
        got[id][p]++;
    }
    return NULL;
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    return id < producers ? producer(id) : consumer(id);
}

/* Everything consumed: a timed wait on the empty buffer times out. */
static void *timed_waiter(void *arg)
{
    (void)arg;
    const uint64_t wait_ns = 20 * 1000000ull;
    uint64_t t0 = tm_deadline_in(0);
    tm_deadline_t dl = tm_deadline_in(wait_ns);
    int timed_out = 0;
    long v = -1;
    tm_atomic_retry {
        if (count == 0)
            tm_cond_wait_until(&not_empty, dl);
        if (count == 0)
            timed_out = 1;
        else
            v = buf[rd];
    }
    CHECK(timed_out);
    CHECK_EQ(v, -1);
    CHECK(tm_deadline_in(0) - t0 >= wait_ns);
    return NULL;
}

int main(void)
{
    th_check_runtime();
    int nt = th_threads();
    if (nt < 2)
        nt = 2;
    CHECK(nt <= MAXT);
    producers = nt / 2;
    consumers = nt - producers;
    /* 100,000 items through the 8-slot buffer: it fills and drains ~12,000 times a run, each
     * time with producers or consumers asleep in tm_cond_wait (200,000 asserted nothing more,
     * at twice the time in each of the 41 runs of make test). */
    per_producer = th_iters(100000) / producers;
    th_run(nt, worker);
    CHECK_EQ(count, 0);
    for (int p = 0; p < producers; p++) {
        long total = 0;
        for (int c = producers; c < nt; c++)
            total += got[c][p];
        CHECK_EQ(total, per_producer);
    }
    th_run(2, timed_waiter);
    puts("ok");
    return 0;
}

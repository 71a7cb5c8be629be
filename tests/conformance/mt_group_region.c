/* A non-revocable section that calls rewritten code: thread 0 holds group g[0] exclusively in
 * plain code and, inside that region, runs transactions whose callees enter g[0] (they nest:
 * the thread holds it) and g[1] (they join it: above g[0] in the one order), as a lock-based
 * program's nested critical sections become once `tmkit advise` rewrites them. Its region
 * changes the pair (u, v) of g[0] in plain code (a write(2) between the halves), then in the
 * transaction, and checks that nothing else changed it meanwhile.
 * The other threads: hybrid sections of g[0] (tm_group_enter before the transaction: they wait
 * for the region), transactions whose callee enters g[1] (joins), a non-revocable section of
 * g[1] in plain code (thread 1), and pure transactions. No thread but the holder enters g[0]
 * inside a transaction: a transaction that may run irrevocably must not wait for a group whose
 * holder begins transactions in its region (docs/groups.md). Pairs (u, v) and (s, t) are only
 * ever changed together; every transaction records what it saw of them, never unequal. */
// TMTEST: threads=2
// TMTEST: tmkit-only=on GCC's libitm a lock group is a read-write lock: entering inside the region's transaction a group its thread holds for writing waits for itself
#include <fcntl.h>
#include <unistd.h>

#include "harness.h"
#include <tmkit.h>

#define NZ 16

static tm_group_t g[2] = {TM_GROUP_INITIALIZER, TM_GROUP_INITIALIZER};
static long u, v, s, t, z[NZ];
static long iters, torn, regions, bumps_p, bumps_q, holds_q;
static int devnull, workers_done;

/* Hybrid sections: enter the pair's group, bump both halves, note what was seen. */
__attribute__((transaction_safe, noinline)) static void bump_p(long *seen)
{
    tm_group_enter(&g[0]);
    __transaction_atomic {
        *seen |= u - v;
        u++;
        v++;
    }
    tm_group_exit(&g[0]);
}

__attribute__((transaction_safe, noinline)) static void bump_q(long *seen)
{
    tm_group_enter(&g[1]);
    __transaction_atomic {
        *seen |= s - t;
        s++;
        t++;
    }
    tm_group_exit(&g[1]);
}

/* Thread 0: the region, with transactions inside that call the sections. */
static void *region(void *arg)
{
    (void)arg;
    long n = 0, bad = 0;
    while (!__atomic_load_n(&workers_done, __ATOMIC_ACQUIRE) || n < 20) {
        long seen = 0;
        tm_group_lock(&g[0]);
        long u0 = u, v0 = v;
        bad += u0 != v0;
        u++;
        CHECK(write(devnull, "r", 1) == 1);
        v++;
        __transaction_atomic {
            bump_p(&seen); /* nests */
            bump_q(&seen); /* joins g[1] */
            bump_p(&seen);
        }
        bad += seen != 0 || u != u0 + 3 || v != v0 + 3;
        tm_group_unlock(&g[0]);
        n++;
    }
    __atomic_fetch_add(&torn, bad, __ATOMIC_RELAXED);
    __atomic_store_n(&regions, n, __ATOMIC_RELEASE);
    return NULL;
}

/* Thread 1: a non-revocable section of g[1] in plain code. */
static void *q_holder(void *arg)
{
    (void)arg;
    long n = 0, bad = 0;
    while (!__atomic_load_n(&workers_done, __ATOMIC_ACQUIRE) || n < 20) {
        tm_group_lock(&g[1]);
        long s0 = s;
        bad += s != t;
        s++;
        CHECK(write(devnull, "q", 1) == 1);
        t++;
        bad += s != s0 + 1 || t != s0 + 1;
        tm_group_unlock(&g[1]);
        n++;
    }
    __atomic_fetch_add(&torn, bad, __ATOMIC_RELAXED);
    __atomic_store_n(&holds_q, n, __ATOMIC_RELEASE);
    return NULL;
}

static void *worker(void *arg)
{
    uint64_t seed = (uint64_t)(intptr_t)arg * 7919 + 1;
    long bad = 0, bp = 0, bq = 0;
    for (long i = 0; i < iters; i++) {
        unsigned r = (unsigned)th_rand(&seed);
        long seen = 0;
        switch (r % 4) {
        case 0: /* hybrid section of g[0]: entered before the transaction */
            tm_group_enter(&g[0]);
            __transaction_atomic {
                seen |= u - v;
                u++;
                v++;
                bump_q(&seen); /* and a callee that joins g[1] */
            }
            tm_group_exit(&g[0]);
            bp++;
            bq++;
            break;
        case 1: /* a callee that joins g[1] */
            __transaction_atomic { bump_q(&seen); }
            bq++;
            break;
        default: { /* pure */
            int a = (int)(r >> 8) % NZ, b = (int)(r >> 16) % NZ;
            __transaction_atomic {
                z[a]--;
                z[b]++;
            }
        }
        }
        bad += seen != 0;
    }
    __atomic_fetch_add(&torn, bad, __ATOMIC_RELAXED);
    __atomic_fetch_add(&bumps_p, bp, __ATOMIC_RELAXED);
    __atomic_fetch_add(&bumps_q, bq, __ATOMIC_RELAXED);
    return NULL;
}

int main(void)
{
    th_check_runtime();
    devnull = open("/dev/null", O_WRONLY);
    CHECK(devnull >= 0);
    int nt = th_threads();
    if (nt < 3)
        nt = 3;
    iters = th_iters(100000) / (nt - 2);
    pthread_t r, q, *w = (pthread_t *)calloc((size_t)nt, sizeof *w);
    CHECK(pthread_create(&r, NULL, region, NULL) == 0);
    CHECK(pthread_create(&q, NULL, q_holder, NULL) == 0);
    for (int i = 2; i < nt; i++)
        CHECK(pthread_create(&w[i], NULL, worker, (void *)(intptr_t)i) == 0);
    for (int i = 2; i < nt; i++)
        CHECK(pthread_join(w[i], NULL) == 0);
    __atomic_store_n(&workers_done, 1, __ATOMIC_RELEASE);
    CHECK(pthread_join(r, NULL) == 0);
    CHECK(pthread_join(q, NULL) == 0);
    long sz = 0;
    for (int k = 0; k < NZ; k++)
        sz += z[k];
    CHECK_EQ(torn, 0);
    CHECK_EQ(u, v);
    CHECK_EQ(s, t);
    CHECK_EQ(u, bumps_p + 3 * regions);
    CHECK_EQ(s, bumps_q + regions + holds_q);
    CHECK_EQ(sz, 0);
    free(w);
    printf("ok: %ld regions, %ld holds of g[1], %ld + %ld bumps committed\n", regions, holds_q,
           bumps_p, bumps_q);
    return 0;
}

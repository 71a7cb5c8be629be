/* Lock groups composed across calls, under contention: two counter pairs, (u, v) the data of
 * group g[0] and (s, t) that of g[1], each only ever changed together, by
 * - a non-revocable section (thread 0): plain code holding the group exclusively, a write(2)
 *   between its two increments, which also checks that nothing changed the pair while it held
 *   the group (a transaction that joined the group then would have);
 * - hybrid sections (the other threads): transaction_safe callees that enter the group and bump
 *   the pair in a nested transaction, called from inside the workers' transactions in every
 *   way a rewritten program calls them: alone (joins), twice and with the other pair's callee
 *   in either order (two joins, a re-entry after an exit), with the group entered before the
 *   transaction (nests), from a nested transaction that cancels (closed nesting: its bump
 *   vanishes), from a transaction that cancels altogether;
 * - non-revocable sections inside transactions: a relaxed transaction locks g[0] and bumps the
 *   pair in plain code around a write(2) on one path (it goes irrevocable at the lock);
 * - pure transactions on other data, with no group.
 * Every bump records u - v (or s - t) as the transaction saw it: never anything but 0. At the
 * end each pair equals the bumps that committed. */
// TMTEST: threads=2
// TMTEST: tmkit-only=on GCC's libitm a lock group is a read-write lock taken where the call is: a transaction cannot wait for it by rolling back, and a cancel does not give it back
#include <fcntl.h>
#include <unistd.h>

#include "harness.h"
#include <tmkit.h>

#define NZ 16

static tm_group_t g[2] = {TM_GROUP_INITIALIZER, TM_GROUP_INITIALIZER};
static long u, v, s, t, z[NZ];
static long iters, torn, held_changed, bumps_p, bumps_q, holds;
static int devnull, workers_done;

/* The hybrid sections: enter the pair's group, bump both halves, note what was seen. */
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

static void *holder(void *arg)
{
    (void)arg;
    long n = 0, bad = 0;
    while (!__atomic_load_n(&workers_done, __ATOMIC_ACQUIRE) || n < 20) {
        int both = n % 3 == 2;
        if (both)
            tm_group_lock(&g[1], &g[0]);
        else
            tm_group_lock(&g[0]);
        long u0 = u, v0 = v, s0 = s, t0 = t;
        bad += u0 != v0;
        u++;
        CHECK(write(devnull, "p", 1) == 1);
        v++;
        if (both) {
            bad += s0 != t0;
            s++;
            CHECK(write(devnull, "q", 1) == 1);
            t++;
            bad += s != s0 + 1 || t != t0 + 1;
            bad += u != u0 + 1 || v != v0 + 1;
            tm_group_unlock(&g[0], &g[1]);
        } else {
            bad += u != u0 + 1 || v != v0 + 1;
            tm_group_unlock(&g[0]);
        }
        n++;
    }
    __atomic_store_n(&held_changed, bad, __ATOMIC_RELAXED);
    __atomic_store_n(&holds, n, __ATOMIC_RELEASE);
    return NULL;
}

static void *worker(void *arg)
{
    uint64_t seed = (uint64_t)(intptr_t)arg * 7919 + 1;
    long bad = 0, bp = 0, bq = 0;
    int io = devnull;
    for (long i = 0; i < iters; i++) {
        unsigned r = (unsigned)th_rand(&seed);
        long seen = 0;
        switch (r % 9) {
        case 0: /* joins */
            __transaction_atomic { bump_p(&seen); }
            bp++;
            break;
        case 1: /* twice, and the other pair, in either order */
            if (r & 16) {
                __transaction_atomic {
                    bump_p(&seen);
                    bump_q(&seen);
                    bump_p(&seen);
                }
            } else {
                __transaction_atomic {
                    bump_q(&seen);
                    bump_p(&seen);
                    bump_p(&seen);
                }
            }
            bp += 2;
            bq++;
            break;
        case 2: /* entered before the transaction: the callee's enter nests */
            tm_group_enter(&g[0]);
            __transaction_atomic {
                bump_p(&seen);
                bump_q(&seen);
            }
            tm_group_exit(&g[0]);
            bp++;
            bq++;
            break;
        case 3: { /* a nested transaction cancels: its bump vanishes */
            int cancel = r & 16;
            __transaction_atomic {
                __transaction_atomic {
                    bump_p(&seen);
                    if (cancel)
                        __transaction_cancel;
                }
                bump_q(&seen);
            }
            bp += !cancel;
            bq++;
            break;
        }
        case 4: { /* the whole transaction cancels */
            int cancel = r & 16;
            __transaction_atomic {
                bump_q(&seen);
                bump_p(&seen);
                if (cancel)
                    __transaction_cancel;
            }
            bp += !cancel;
            bq += !cancel;
            break;
        }
        case 5: /* a non-revocable section inside a relaxed transaction */
            if (r % 7 == 0) {
                __transaction_relaxed {
                    tm_group_lock(&g[0]);
                    seen |= u - v;
                    u++;
                    if (io >= 0)
                        CHECK(write(io, "l", 1) == 1);
                    v++;
                    tm_group_unlock(&g[0]);
                }
                bp++;
                break;
            }
            /* fall through */
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
    if (nt < 2)
        nt = 2;
    iters = th_iters(200000) / (nt - 1);
    pthread_t h, *w = (pthread_t *)calloc((size_t)nt, sizeof *w);
    CHECK(pthread_create(&h, NULL, holder, NULL) == 0);
    for (int i = 1; i < nt; i++)
        CHECK(pthread_create(&w[i], NULL, worker, (void *)(intptr_t)i) == 0);
    for (int i = 1; i < nt; i++)
        CHECK(pthread_join(w[i], NULL) == 0);
    __atomic_store_n(&workers_done, 1, __ATOMIC_RELEASE);
    CHECK(pthread_join(h, NULL) == 0);
    long n = holds, both = n / 3; /* every third hold took both groups */
    long sz = 0;
    for (int k = 0; k < NZ; k++)
        sz += z[k];
    CHECK_EQ(torn, 0);
    CHECK_EQ(held_changed, 0);
    CHECK_EQ(u, v);
    CHECK_EQ(s, t);
    CHECK_EQ(u, bumps_p + n);
    CHECK_EQ(s, bumps_q + both);
    CHECK_EQ(sz, 0);
    free(w);
    printf("ok: %ld holds, %ld + %ld bumps committed\n", n, bumps_p, bumps_q);
    return 0;
}

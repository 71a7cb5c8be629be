/* Privatization by tm_atomic_exchange in plain code, while several threads transact (the
 * operation is ordered with transactions as a one-word transaction is, quiescence included:
 * runtime/ext/atomic_orec.c). Even threads take a node out of a shared slot with
 * tm_atomic_exchange, write its fields with plain stores, wait, check them, clear them and
 * put the node back with tm_atomic_store; odd threads add to the fields of the node they find
 * in the slot inside transactions, in place under the write-through algorithms. A doomed
 * transaction that wrote or rolled back after the exchange returned would overwrite the plain
 * stores (with TMKIT_PRIVATIZATION=off orec_eager does: 181 of 50,000 checks, 2026-11-25). */
// TMTEST: threads=2
#include "harness.h"
#include <tmkit.h>

#define FIELDS 4
#define MAGIC 0x5eed5eedL

struct node {
    long f[FIELDS];
};

static long filler[32];
static struct node nodes[2];
static struct node *slot[2];
static long iters, bad_private, taken;

static long work(void)
{
    long s = 0;
    for (int j = 0; j < 32; j++)
        s += filler[j];
    return s;
}

static void *privatize(void *arg)
{
    long id = (long)(intptr_t)arg;
    struct node **s = &slot[(id >> 1) & 1];
    for (long i = 0; i < iters; i++) {
        if (id & 1) {
            __transaction_atomic {
                struct node *n = *s;
                if (n)
                    for (int k = 0; k < FIELDS; k++)
                        n->f[k] += 1 + work();
            }
            continue;
        }
        struct node *n = tm_atomic_exchange(s, (struct node *)NULL);
        if (!n)
            continue; /* the other privatizer of this slot has it */
        __atomic_fetch_add(&taken, 1, __ATOMIC_RELAXED);
        for (int k = 0; k < FIELDS; k++)
            n->f[k] = MAGIC;
        for (volatile int w = 0; w < 200; w++) {
        }
        for (int k = 0; k < FIELDS; k++)
            if (n->f[k] != MAGIC)
                __atomic_fetch_add(&bad_private, 1, __ATOMIC_RELAXED);
        for (int k = 0; k < FIELDS; k++)
            n->f[k] = 0;
        tm_atomic_store(s, n); /* published again: the stores above come first */
    }
    return NULL;
}

int main(void)
{
    th_check_runtime();
    int t = th_threads() < 2 ? 2 : th_threads();
    iters = th_iters(200000) / t;
    slot[0] = &nodes[0];
    slot[1] = &nodes[1];
    th_run(t, privatize);
    CHECK_EQ(bad_private, 0);
    CHECK(taken > 0);
    printf("ok (%ld privatizations)\n", taken);
    return 0;
}

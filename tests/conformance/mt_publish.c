/* Publication safety.
 *
 * Publisher threads fill a freshly allocated node non-transactionally and then publish its
 * pointer into a random slot of a shared table with a transaction. Reader threads read a random
 * slot in a transaction; whenever they see a node they must see it fully initialized:
 * magic, id, the derived values and their checksum all consistent. The contents are checked inside
 * the transaction (through a transaction_pure reporter, so even a transaction that would later
 * abort must not see garbage) and again non-transactionally after the commit (the node is
 * immutable once published, so the committed read of the pointer orders the plain reads).
 * Retired nodes are kept until the end, then every published node is accounted for.
 */
// TMTEST: o0-div=4
#include <sched.h>
#include <stdatomic.h>

#include "harness.h"

#define NSLOT 16
#define NVAL 6
#define MAGIC 0x0C0FFEE5L

struct node {
    long magic;
    long id;
    long val[NVAL];
    long sum;
};

static struct node *slot[NSLOT];
static int n_pub, n_read;
static long per_pub;
static long reads_per_reader;
static atomic_int publishers_running; /* readers keep going until every publisher is done */

static long node_val(long id, int i) { return id * 131 + i * 7 + 1; }

static void *publisher(void *arg)
{
    int me = (int)(intptr_t)arg;
    struct node **mine = calloc((size_t)per_pub, sizeof *mine);
    CHECK(mine != NULL);
    uint64_t rng = 0x5151ULL + (uint64_t)me * 0x10001ULL;
    for (long i = 0; i < per_pub; i++) {
        struct node *nd = malloc(sizeof *nd);
        CHECK(nd != NULL);
        nd->id = (long)me * per_pub + i + 1;
        long sum = 0;
        for (int k = 0; k < NVAL; k++) {
            nd->val[k] = node_val(nd->id, k);
            sum += nd->val[k];
        }
        nd->sum = sum;
        nd->magic = MAGIC;
        mine[i] = nd;
        int s = (int)(th_rand(&rng) % NSLOT);
        __transaction_atomic { slot[s] = nd; }
    }
    atomic_fetch_sub(&publishers_running, 1);
    return mine;
}

static void *reader(void *arg)
{
    uint64_t rng = 0xBEEFULL + (uint64_t)(intptr_t)arg * 7919;
    long seen = 0;
    /* At least reads_per_reader reads, and more while publishers run: a reader that finished
     * before any node was published would prove nothing. */
    for (long i = 0; i < reads_per_reader || atomic_load(&publishers_running) > 0; i++) {
        if ((i & 63) == 63)
            sched_yield(); /* with more threads than cores, leave the publishers some CPU */
        int s = (int)(th_rand(&rng) % NSLOT);
        struct node *p;
        __transaction_atomic {
            p = slot[s];
            if (p) {
                if (p->magic != MAGIC)
                    th_tx_fail("published node not initialized: magic = %ld", (long)p->magic);
                long sum = 0;
                for (int k = 0; k < NVAL; k++) {
                    if (p->val[k] != node_val(p->id, k))
                        th_tx_fail("published node not initialized: val = %ld", (long)p->val[k]);
                    sum += p->val[k];
                }
                if (sum != p->sum)
                    th_tx_fail("published node not initialized: sum = %ld", (long)p->sum);
            }
        }
        if (p) {
            seen++;
            CHECK_EQ(p->magic, MAGIC);
            CHECK(p->id >= 1 && p->id <= n_pub * per_pub);
            long sum = 0;
            for (int k = 0; k < NVAL; k++) {
                CHECK_EQ(p->val[k], node_val(p->id, k));
                sum += p->val[k];
            }
            CHECK_EQ(sum, p->sum);
        }
    }
    return (void *)(intptr_t)seen;
}

int main(void)
{
    th_check_runtime();
    int n = th_threads();
    n_pub = n / 2 > 0 ? n / 2 : 1;
    n_read = n - n_pub > 0 ? n - n_pub : 1;
    per_pub = th_iters(50000);
    reads_per_reader = th_iters(300000);

    pthread_t *tp = calloc((size_t)n_pub, sizeof *tp), *tr = calloc((size_t)n_read, sizeof *tr);
    CHECK(tp && tr);
    atomic_store(&publishers_running, n_pub);
    for (int i = 0; i < n_read; i++)
        CHECK(pthread_create(&tr[i], NULL, reader, (void *)(intptr_t)i) == 0);
    for (int i = 0; i < n_pub; i++)
        CHECK(pthread_create(&tp[i], NULL, publisher, (void *)(intptr_t)i) == 0);
    struct node ***all = calloc((size_t)n_pub, sizeof *all);
    CHECK(all != NULL);
    for (int i = 0; i < n_pub; i++)
        CHECK(pthread_join(tp[i], (void **)&all[i]) == 0);
    long seen = 0;
    for (int i = 0; i < n_read; i++) {
        void *ret;
        CHECK(pthread_join(tr[i], &ret) == 0);
        seen += (long)(intptr_t)ret;
    }
    CHECK(seen > 0);

    /* every slot holds one of the published nodes */
    for (int s = 0; s < NSLOT; s++) {
        CHECK(slot[s] != NULL);
        CHECK_EQ(slot[s]->magic, MAGIC);
    }
    long ids = 0;
    for (int i = 0; i < n_pub; i++) {
        for (long k = 0; k < per_pub; k++) {
            ids += all[i][k]->id;
            free(all[i][k]);
        }
        free(all[i]);
    }
    long total = (long)n_pub * per_pub;
    CHECK_EQ(ids, total * (total + 1) / 2);
    free(all);
    free(tp);
    free(tr);
    printf("mt_publish: %d publishers, %d readers, %ld nodes seen\n", n_pub, n_read, seen);
    return 0;
}

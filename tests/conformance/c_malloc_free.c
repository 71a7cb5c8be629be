/* free inside transactions. free in a transaction that is cancelled does not free: the block
 * stays allocated (the heap does not hand it out again) and its contents stay intact. free in a
 * committed transaction does free it (mallinfo2 shows the bytes returned). malloc and free of
 * the same block within one transaction, 100000 times, do not grow the heap. Finally threads
 * swap blocks in and out of shared slots in transactions (allocate the new block, free the old
 * one), checking each block's contents when they free it.
 * The cancelled free does not also clear the pointer: "free(g); g = NULL;" compiles at -O2 to
 * _ITM_RfW + _ITM_WaW, which libitm serialirr cannot undo (c_cancel_rmw.c). */
#include "harness.h"

#include <malloc.h>

#define BIG 100000 /* below the mmap threshold: counted in uordblks */
static unsigned char *g_block;
static long *g_tmp;
static int g_flag;
static volatile int runtime_one = 1;
static size_t in_use(void) { return mallinfo2().uordblks; }

#define SLOTS 16
struct node {
    long magic;
    long slot;
    long payload[30];
};
static struct node *slots[SLOTS];
static int bad_nodes;
TH_PURE static void note_bad(void) { bad_nodes++; }
static long swaps;

static void *swapper(void *arg)
{
    uint64_t rng = 0x9E3779B97F4A7C15ull * (uint64_t)((intptr_t)arg + 1);
    for (int i = 0; i < 20000; i++) {
        int s = (int)(th_rand(&rng) % SLOTS);
        __transaction_atomic {
            struct node *old = slots[s];
            struct node *n = malloc(sizeof *n);
            n->magic = 0x5EED;
            n->slot = s;
            n->payload[s] = s * 7;
            slots[s] = n;
            if (old) {
                if (old->magic != 0x5EED || old->slot != s || old->payload[s] != s * 7)
                    note_bad();
                free(old);
            }
            swaps++;
        }
        TH_FORGET_MEMORY();
    }
    return NULL;
}

int main(void)
{
    th_check_runtime();
    int one = runtime_one;

    /* free in a cancelled transaction: nothing happens. */
    unsigned char *p = malloc(BIG);
    CHECK(p != NULL);
    for (int i = 0; i < BIG; i++)
        p[i] = (unsigned char)(i * 13);
    g_block = p;
    size_t before = in_use();
    for (int round = 0; round < 100; round++) {
        __transaction_atomic {
            free(g_block);
            g_flag = 1;
            if (one)
                __transaction_cancel;
        }
        TH_FORGET_MEMORY();
        CHECK(g_block == p);
        CHECK_EQ(g_flag, 0);
    }
    CHECK(in_use() >= before);
    for (int i = 0; i < BIG; i++)
        CHECK_EQ(p[i], (unsigned char)(i * 13));
    unsigned char *q = malloc(BIG); /* p is still allocated, so q must be elsewhere */
    CHECK(q != NULL);
    CHECK(q + BIG <= p || p + BIG <= q);
    free(q);

    /* free in a committed transaction: the bytes go back. */
    before = in_use();
    __transaction_atomic {
        free(g_block);
        g_block = NULL;
    }
    TH_FORGET_MEMORY();
    CHECK(g_block == NULL);
    CHECK(in_use() + BIG <= before);

    /* malloc and free in one transaction. */
    for (int warm = 0; warm < 100; warm++) {
        __transaction_atomic {
            long *t = malloc(256);
            t[0] = warm;
            g_tmp = t;
            free(t);
            g_tmp = NULL;
        }
        TH_FORGET_MEMORY();
    }
    before = in_use();
    for (long k = 0; k < th_iters(100000); k++) {
        __transaction_atomic {
            long *t = malloc(64 + (size_t)(k % 16) * 8);
            t[0] = k;
            g_tmp = t;
            t[1] = g_tmp[0] + 1;
            free(t);
            g_tmp = NULL;
        }
        TH_FORGET_MEMORY();
    }
    CHECK(in_use() < before + 64 * 1024);

    /* The same, cancelled: also no growth. */
    before = in_use();
    for (long k = 0; k < th_iters(50000); k++) {
        __transaction_atomic {
            long *t = malloc(128);
            t[0] = k;
            g_tmp = t;
            free(t);
            if (one)
                __transaction_cancel;
        }
        TH_FORGET_MEMORY();
    }
    CHECK(g_tmp == NULL);
    CHECK(in_use() < before + 64 * 1024);

    /* Threads swapping blocks. */
    int n = th_threads();
    th_run(n, swapper);
    CHECK_EQ(bad_nodes, 0);
    CHECK_EQ(swaps, (long)n * 20000);
    for (int s = 0; s < SLOTS; s++) {
        CHECK(slots[s] != NULL && slots[s]->magic == 0x5EED && slots[s]->slot == s);
        free(slots[s]);
    }
    return 0;
}

/* Writers whose write sets grow, and short-lived threads, beside readers of the same words.
 *
 * orec_lazy locks an orec at commit with a value naming a record in the committer's block of
 * lock records, and a reader that meets the lock follows it to the record's owner, possibly
 * after the lock is gone. The block grows when a commit writes more words than it holds, and
 * goes back with the descriptor when the thread ends: neither may free memory such a reader can
 * still follow (runtime/algo/orec_locks.c). Here writers are threads that live for one round:
 * each commits ever larger prefixes of the array (1, 2, 4 ... 8192 words: the block grows past
 * the allocator's mmap threshold, so a freed block is unmapped), then ends, and the next round's
 * writers start from a new small block; meanwhile readers sum the whole array in transactions.
 *
 * Invariant: a writer adds 1 to every word of its prefix and `size` to `total` in the same
 * transaction, so inside any transaction the array's sum equals `total`. At the end every word
 * holds the number of writes that covered it, computed from the rounds.
 */
#include "harness.h"

// TMTEST: valgrind=yes
// TMTEST: valgrind-div=4
// TMTEST: libitm-div=4

#define NWORDS 8192
#define MAXLOG 13 /* 2^13 = NWORDS */

static long words[NWORDS];
static long total;
static int stop; /* set once, after the writers: read outside transactions */
static long reads_ok;
static int readers_in; /* readers that have completed a read: main keeps writing until one has */

static void *writer(void *arg)
{
    (void)arg;
    for (int lg = 0; lg <= MAXLOG; lg++) {
        int size = 1 << lg;
        __transaction_atomic {
            for (int i = 0; i < size; i++)
                words[i]++;
            total += size;
        }
    }
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    long ok = 0;
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        __transaction_atomic {
            long sum = 0;
            for (int i = 0; i < NWORDS; i++)
                sum += words[i];
            if (sum != total)
                th_tx_fail("sum of the words %ld, total %ld", sum, total);
        }
        if (++ok == 1)
            __atomic_fetch_add(&readers_in, 1, __ATOMIC_RELAXED);
    }
    return (void *)(intptr_t)ok;
}

int main(void)
{
    th_check_runtime();
    int n = th_threads();
    int writers = n > 1 ? n / 2 : 1, readers = n > 1 ? n - writers : 1;
    long rounds = th_iters(12);
    pthread_t *r = calloc((size_t)readers, sizeof *r), *w = calloc((size_t)writers, sizeof *w);
    CHECK(r != NULL && w != NULL);
    for (int i = 0; i < readers; i++)
        CHECK(pthread_create(&r[i], NULL, reader, NULL) == 0);
    /* New writer threads each round: new lock blocks. The rounds go on past `rounds` until a
     * reader has completed a read beside them (12 rounds took 10 ms, and once under adaptive in
     * a loaded `make test` no reader had finished one by then), at most 100 times as many. */
    long k = 0;
    for (; k < rounds || (!__atomic_load_n(&readers_in, __ATOMIC_RELAXED) && k < 100 * rounds);
         k++) {
        for (int i = 0; i < writers; i++)
            CHECK(pthread_create(&w[i], NULL, writer, NULL) == 0);
        for (int i = 0; i < writers; i++)
            CHECK(pthread_join(w[i], NULL) == 0);
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < readers; i++) {
        void *ret;
        CHECK(pthread_join(r[i], &ret) == 0);
        reads_ok += (long)(intptr_t)ret;
    }
    free(r);
    free(w);

    /* word i was covered by every prefix longer than i, once per writer per round */
    long want_total = 0;
    for (int i = 0; i < NWORDS; i++) {
        int covered = 0;
        for (int lg = 0; lg <= MAXLOG; lg++)
            covered += (1 << lg) > i;
        CHECK_EQ(words[i], (long)covered * writers * k);
        want_total += words[i];
    }
    CHECK_EQ(total, want_total);
    CHECK(reads_ok > 0);
    printf("mt_lock_records: %d writers x %ld rounds, %d readers, %ld reads\n", writers, k,
           readers, reads_ok);
    return 0;
}

/* The plain memcpy/memset/memmove calls GCC emits inside transaction clones at -O2 (loop
 * distribution runs after the TM pass), under concurrency: each thread keeps its own record
 * (a sorted array grown by shifts, a fill, a copy of what it just wrote) and every transaction
 * also increments one shared counter, so transactions of different threads conflict and abort.
 * Each copy, fill and shift works on values the same transaction wrote through barriers before.
 * Invariants after the run: every thread's array is exactly the reference it kept outside
 * transactions, its fill and copy areas hold the last round's values, and the counter equals
 * the number of commits. Passes under libitm's serialirr and every tmkit
 * algorithm: under the redo-log ones the runtime sees the calls (abi/interpose.c). libitm's
 * gl_wt and ml_wt fail it at 2+ threads: an aborted attempt's plain memmove is never undone. */
// TMTEST: libitm-methods=serialirr
// TMTEST: threads=1,2
#include "harness.h"

#define N 96
#define MAXT 64

struct rec {
    long arr[N];
    long len;
    char fill[128];
    long src[16];
    long *copy;
    char pad[64];
};
static struct rec recs[MAXT];
static long counter;
static long iters;

__attribute__((transaction_safe, noinline)) void open_gap(long *a, long n, long pos)
{
    for (long i = n; i > pos; i--)
        a[i] = a[i - 1]; /* memmove */
}

__attribute__((transaction_safe, noinline)) void fill(char *p, size_t n, char c)
{
    for (size_t i = 0; i < n; i++)
        p[i] = c; /* memset */
}

__attribute__((transaction_safe, noinline)) long *dup_array(const long *src, long n)
{
    long *p = (long *)malloc((size_t)n * sizeof *p);
    if (p)
        for (long i = 0; i < n; i++)
            p[i] = src[i]; /* memcpy */
    return p;
}

__attribute__((transaction_safe)) static void insert_sorted(struct rec *r, long v)
{
    long pos = 0;
    while (pos < r->len && r->arr[pos] < v)
        pos++;
    open_gap(r->arr, r->len, pos);
    r->arr[pos] = v;
    r->len++;
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    struct rec *r = &recs[id];
    long ref[N], ref_len = 0;
    uint64_t rng = 99 + (uint64_t)id * 1234567;
    for (long it = 0; it < iters; it++) {
        long v = (long)(th_rand(&rng) % 100000), k = 1 + (long)(th_rand(&rng) % 15);
        size_t nfill = 8 + (size_t)(th_rand(&rng) % 100);
        char c = (char)('A' + it % 26);
        long *old = NULL, *copy = NULL, seen = 0;
        int reset = r->len >= N - 1; /* the owner alone writes its record's length */
        __transaction_atomic {
            if (reset)
                r->len = 0;
            insert_sorted(r, v);
            for (long i = 0; i < k; i++)
                r->src[i] = it * 100 + i;
            old = r->copy;
            copy = dup_array(r->src, k);
            r->copy = copy;
            for (size_t i = 0; i < nfill + 4; i++)
                r->fill[i] = (char)('a' + (i & 7));
            fill(r->fill, nfill, c);
            for (long i = 0; i < k; i++)
                seen += copy[i] == it * 100 + i;
            for (size_t i = 0; i < nfill; i++)
                seen += r->fill[i] == c;
            counter++;
        }
        CHECK_EQ(seen, k + (long)nfill);
        free(old);
        if (reset)
            ref_len = 0;
        long pos = 0;
        while (pos < ref_len && ref[pos] < v)
            pos++;
        memmove(ref + pos + 1, ref + pos, (size_t)(ref_len - pos) * sizeof *ref);
        ref[pos] = v;
        ref_len++;
        CHECK_EQ(r->len, ref_len);
        for (long i = 0; i < ref_len; i++)
            CHECK_EQ(r->arr[i], ref[i]);
        for (long i = 0; i < k; i++)
            CHECK_EQ(r->copy[i], it * 100 + i);
        for (size_t i = 0; i < nfill; i++)
            CHECK_EQ(r->fill[i], c);
        for (size_t i = nfill; i < nfill + 4; i++)
            CHECK_EQ(r->fill[i], 'a' + (i & 7));
    }
    return NULL;
}

int main(void)
{
    th_check_runtime();
    int nt = th_threads();
    CHECK(nt <= MAXT);
    iters = th_iters(20000);
    th_run(nt, worker);
    CHECK_EQ(counter, iters * nt);
    for (int i = 0; i < nt; i++)
        free(recs[i].copy);
    puts("ok");
    return 0;
}

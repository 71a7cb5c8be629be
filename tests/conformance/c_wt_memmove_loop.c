/* A shift loop in a transaction_safe function becomes a plain memmove call at -O2 (loop
 * distribution, after the TM pass): an insertion into a sorted array, as a server's priority
 * queue does it. The transaction first writes the array through barriers, then shifts it: the
 * shift must move the values just written, and commit must keep the shifted array. */
#include "harness.h"

#define N 128
static long arr[N];
static long len;

/* becomes memmove(a + pos + 1, a + pos, (n - pos) * 8) */
__attribute__((transaction_safe, noinline)) void open_gap(long *a, long n, long pos)
{
    for (long i = n; i > pos; i--)
        a[i] = a[i - 1];
}

/* becomes memmove(a + pos, a + pos + 1, ...) */
__attribute__((transaction_safe, noinline)) void close_gap(long *a, long n, long pos)
{
    for (long i = pos; i + 1 < n; i++)
        a[i] = a[i + 1];
}

__attribute__((transaction_safe)) static void insert_sorted(long v)
{
    long pos = 0;
    while (pos < len && arr[pos] < v)
        pos++;
    open_gap(arr, len, pos);
    arr[pos] = v;
    len++;
}

/* The same operations on a plain array, outside any transaction: the expected contents. */
static long ref[N], ref_len;
static void ref_insert(long v)
{
    long pos = 0;
    while (pos < ref_len && ref[pos] < v)
        pos++;
    memmove(ref + pos + 1, ref + pos, (size_t)(ref_len - pos) * sizeof *ref);
    ref[pos] = v;
    ref_len++;
}

int main(void)
{
    th_check_runtime();
    uint64_t rng = 42;
    for (int round = 0; round < 40; round++) {
        long v[3];
        for (int k = 0; k < 3; k++)
            v[k] = (long)(th_rand(&rng) % 1000);
        __transaction_atomic {
            /* several inserts in one transaction: each shift moves values written by barriers */
            for (int k = 0; k < 3 && len < N - 1; k++)
                insert_sorted(v[k]);
            if (len > 10)
                close_gap(arr, len--, 2);
        }
        for (int k = 0; k < 3 && ref_len < N - 1; k++)
            ref_insert(v[k]);
        if (ref_len > 10) {
            memmove(ref + 2, ref + 3, (size_t)(ref_len - 3) * sizeof *ref);
            ref_len--;
        }
        CHECK_EQ(len, ref_len);
        for (long i = 0; i < len; i++)
            CHECK_EQ(arr[i], ref[i]);
    }
    CHECK(len > 40);
    puts("ok");
    return 0;
}

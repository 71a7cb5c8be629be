/* Every __atomic/__sync form `tmkit advise --apply` rewrites, on each type tm_atomic_* takes,
 * in one critical section (so they run inside a transaction) and again outside it; and which
 * it leaves (unsigned short, xor, a fence). Statistics counters: which become tm_counter_t and
 * which stay (address taken, assigned, value used, updated outside a section, non-zero).
 * Prints the values; the lock build and the rewritten one must print the same. */
#include <inttypes.h>
#include <stdio.h>

#include "forms.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long l = 5;
static unsigned long ul = 7;
static int i = 11;
static unsigned int ui = 13;
static int cell_a, cell_b;
static int *ptr = &cell_a;
static unsigned short us;               /* no tm_atomic_* for it: left */
static int x;                           /* xor: left */
static long out[24];

unsigned long bytes_in = 0;             /* counters: += and reads */
static int hits;                        /* ++ and -- */
static uint64_t served;                 /* read outside any section */
static long addressed, assigned, valued, outside, seeded = 3;   /* each stays: see below */

static void bump(long *p) { (*p)++; }

static void forms(long n)
{
    int *seen = &cell_a, *fresh = &cell_b, e = 11;
    long le = 0, v;
    pthread_mutex_lock(&m);
    out[0] = __atomic_load_n(&l, __ATOMIC_ACQUIRE);
    __atomic_store_n(&ul, ul + (unsigned long)n, __ATOMIC_RELEASE);
    out[1] = __atomic_exchange_n(&i, 12, __ATOMIC_SEQ_CST);
    out[2] = __atomic_compare_exchange_n(&i, &e, 20, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
    out[3] = e;
    out[4] = __atomic_fetch_add(&l, n, __ATOMIC_RELAXED);
    out[5] = __atomic_fetch_sub(&ui, 1, __ATOMIC_RELAXED);
    out[6] = (long)__atomic_fetch_and(&ul, 0xfful, __ATOMIC_RELAXED);
    out[7] = __atomic_fetch_or(&i, 0x100, __ATOMIC_RELAXED);
    out[8] = __atomic_add_fetch(&l, n * 2, __ATOMIC_RELAXED);
    out[9] = __atomic_sub_fetch(&ui, 2, __ATOMIC_RELAXED);
    out[10] = __sync_fetch_and_add(&i, 3);
    out[11] = __sync_add_and_fetch(&l, 1);
    out[12] = __sync_sub_and_fetch(&ul, 1);
    out[13] = __sync_bool_compare_and_swap(&ui, 999u, 1u);
    out[14] = __sync_val_compare_and_swap(&l, out[11], 100);
    out[15] = __sync_lock_test_and_set(&i, 42);
    out[16] = __atomic_compare_exchange_n(&ptr, &seen, fresh, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    out[17] = __atomic_load_n(&ptr, __ATOMIC_RELAXED) == fresh;
    __atomic_load(&l, &v, __ATOMIC_RELAXED);
    out[18] = v;
    __atomic_store(&l, &le, __ATOMIC_RELAXED);
    if (n > 1)                              /* a statement of its own: the value unused */
        __atomic_add_fetch(&l, n, __ATOMIC_RELAXED);
    bytes_in += (unsigned long)n;
    served += 2;
    hits++;
    hits--;
    hits++;
    bump(&addressed);
    addressed++;
    assigned = n;
    assigned++;
    out[20] = valued++;
    seeded++;
    outside++;
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m);                 /* a section that keeps its blockers: relaxed */
    v = __atomic_fetch_add(&us, 1, __ATOMIC_RELAXED);
    __atomic_fetch_xor(&x, 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&m);
    out[19] = v;
    out[21] = __sync_or_and_fetch(&i, 1);   /* outside the section, on a rewritten word */
    __sync_lock_release(&ui);
    out[22] = __atomic_load_n(&ui, __ATOMIC_SEQ_CST);
    outside++;
}

int main(void)
{
    for (long n = 1; n <= 3; n++) {
        forms(n);
        for (int k = 0; k < 23; k++)
            printf("%ld ", out[k]);
        printf("| %lu %d %" PRIu64 " %ld %ld %ld %ld %ld\n", bytes_in, hits, served, addressed,
               assigned, valued, outside, seeded);
    }
    return 0;
}

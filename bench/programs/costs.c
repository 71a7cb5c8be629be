/* costs: what one thing costs, for the cost model (docs/costs.md, `tmkit bench costs`).
 * `costs --op OP --n N` runs OP N times in one thread and prints its ns per operation; the
 * driver also counts instructions (callgrind: two values of N, the difference) under each
 * algorithm. The operations (each one transaction unless it says otherwise):
 *   empty         a transaction whose body calls an empty function (what every one pays)
 *   read          one read of a shared word
 *   write         one write
 *   nested-flat   one write, plus a nested transaction with one write in a callee (flattened)
 *   nested-closed the same nested transaction with a __transaction_cancel path: a checkpoint
 *   handler       one write and a tm_on_commit handler (registered, run at commit)
 *   malloc-free   one write, malloc(32) and free of the previous block inside the transaction
 *   retry         tm_atomic_retry with a condition that holds (no wait): the retry loop's cost
 *   counter       one write and one tm_counter_add
 *   atomic-out    tm_atomic_fetch_add outside any transaction (its own one-word transaction)
 *   hw-atomic     __atomic_fetch_add outside transactions (the hardware's, for reference)
 *   atomic-in     tm_atomic_fetch_add inside a transaction of one write
 *   irrevocable   __transaction_relaxed with one write and a call that is not safe (it goes
 *                 serial-irrevocable)
 * and the memcached authors' question, a reference count taken by a larger transaction (8 reads
 * and 2 writes) or by plain code, three ways:
 *   ref-relaxed-in / ref-relaxed-out   a GCC __atomic builtin (inside: a relaxed transaction,
 *                                      which goes irrevocable at the builtin)
 *   ref-nested-in / ref-nested-out     a small __transaction_atomic of its own (nested inside)
 *   ref-atomic-in / ref-atomic-out     tm_atomic_fetch_add
 * lock groups (include/tmkit/group.h, docs/groups.md), one group, no other thread:
 *   group-enter   tm_group_enter, a transaction of one write, tm_group_exit (a hybrid section)
 *   group-lock    tm_group_lock, one plain write, tm_group_unlock (a non-revocable section)
 * and the transaction-safe libc (include/tmkit/libc.h, docs/libc.md: GCC calls tmkit.h's
 * wrapper inside the transaction, libc outside it):
 *   strlen-64     strlen of a shared 64-byte string
 *   snprintf      snprintf(buf, 64, "%d %s", i, name) into a shared buffer (name: 8 bytes)
 * Output: `bench=costs op=OP n=N ns_per_op=X ok=1`. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tmkit.h>

static long word, words[16], refs;
static volatile long sink;
static tm_counter_t counter = TM_COUNTER_INITIALIZER;
static void *block;
static tm_group_t group = TM_GROUP_INITIALIZER;
static char str64[65], name8[9] = "costs-op", buf64[64];

__attribute__((noinline, transaction_safe)) static void nested_flat(void)
{
    __transaction_atomic { words[1]++; }
}

__attribute__((noinline, transaction_safe)) static void nested_closed(int cancel)
{
    __transaction_atomic {
        words[1]++;
        if (cancel)
            __transaction_cancel;
    }
}

__attribute__((noinline)) static void unsafe_call(void) { sink = sink + 1; }

/* An empty body: GCC drops a truly empty __transaction_atomic; a call it cannot see into keeps
 * the begin and the commit (as bench/programs/micro.c's `empty`). */
__attribute__((noipa, transaction_safe)) static void nothing(void) {}

__attribute__((noinline, transaction_safe)) static void ref_nested(long *r)
{
    __transaction_atomic { (*r)++; }
}

/* The larger transaction's own work: 8 reads and 2 writes. */
#define BIG_WORK()                                                                             \
    do {                                                                                       \
        long s = 0;                                                                            \
        for (int i = 0; i < 8; i++)                                                            \
            s += words[i];                                                                     \
        words[8] = s;                                                                          \
        words[9]++;                                                                            \
    } while (0)

static int run(const char *op, long n)
{
    int cancel = n < 0; /* never: keeps the cancel path live without taking it */
    if (!strcmp(op, "empty")) {
        for (long i = 0; i < n; i++)
            __transaction_atomic { nothing(); }
    } else if (!strcmp(op, "read")) {
        long s = 0;
        for (long i = 0; i < n; i++)
            __transaction_atomic { s += word; }
        sink = s;
    } else if (!strcmp(op, "write")) {
        for (long i = 0; i < n; i++)
            __transaction_atomic { word = i; }
    } else if (!strcmp(op, "nested-flat")) {
        for (long i = 0; i < n; i++)
            __transaction_atomic {
                word = i;
                nested_flat();
            }
    } else if (!strcmp(op, "nested-closed")) {
        for (long i = 0; i < n; i++)
            __transaction_atomic {
                word = i;
                nested_closed(cancel);
            }
    } else if (!strcmp(op, "handler")) {
        for (long i = 0; i < n; i++)
            __transaction_atomic {
                word = i;
                tm_on_commit() { sink = 1; }
            }
    } else if (!strcmp(op, "malloc-free")) {
        for (long i = 0; i < n; i++)
            __transaction_atomic {
                free(block);
                block = malloc(32);
                word = i;
            }
    } else if (!strcmp(op, "retry")) {
        for (long i = 0; i < n; i++)
            tm_atomic_retry {
                if (word < 0)
                    tm_retry();
                word = i;
            }
    } else if (!strcmp(op, "counter")) {
        for (long i = 0; i < n; i++)
            __transaction_atomic {
                word = i;
                tm_counter_add(&counter, 1);
            }
        if (tm_counter_read(&counter) != n)
            return 0;
    } else if (!strcmp(op, "atomic-out")) {
        for (long i = 0; i < n; i++)
            tm_atomic_fetch_add(&word, 1);
    } else if (!strcmp(op, "hw-atomic")) {
        for (long i = 0; i < n; i++)
            __atomic_fetch_add(&word, 1, __ATOMIC_SEQ_CST);
    } else if (!strcmp(op, "atomic-in")) {
        for (long i = 0; i < n; i++)
            __transaction_atomic {
                words[1] = i;
                tm_atomic_fetch_add(&word, 1);
            }
    } else if (!strcmp(op, "irrevocable")) {
        for (long i = 0; i < n; i++)
            __transaction_relaxed {
                word = i;
                unsafe_call();
            }
    } else if (!strcmp(op, "ref-relaxed-in")) {
        for (long i = 0; i < n; i++)
            __transaction_relaxed {
                BIG_WORK();
                __atomic_fetch_add(&refs, 1, __ATOMIC_SEQ_CST);
            }
    } else if (!strcmp(op, "ref-relaxed-out")) {
        for (long i = 0; i < n; i++)
            __atomic_fetch_add(&refs, 1, __ATOMIC_SEQ_CST);
    } else if (!strcmp(op, "ref-nested-in")) {
        for (long i = 0; i < n; i++)
            __transaction_atomic {
                BIG_WORK();
                ref_nested(&refs);
            }
    } else if (!strcmp(op, "ref-nested-out")) {
        for (long i = 0; i < n; i++)
            ref_nested(&refs);
    } else if (!strcmp(op, "ref-atomic-in")) {
        for (long i = 0; i < n; i++)
            __transaction_atomic {
                BIG_WORK();
                tm_atomic_fetch_add(&refs, 1);
            }
    } else if (!strcmp(op, "ref-atomic-out")) {
        for (long i = 0; i < n; i++)
            tm_atomic_fetch_add(&refs, 1);
    } else if (!strcmp(op, "group-enter")) {
        for (long i = 0; i < n; i++) {
            tm_group_enter(&group);
            __transaction_atomic { word = i; }
            tm_group_exit(&group);
        }
    } else if (!strcmp(op, "group-lock")) {
        for (long i = 0; i < n; i++) {
            tm_group_lock(&group);
            word = i;
            tm_group_unlock(&group);
        }
    } else if (!strcmp(op, "strlen-64")) {
        memset(str64, 'a', 64);
        long s = 0;
        for (long i = 0; i < n; i++)
            __transaction_atomic { s += (long)strlen(str64); }
        if (s != 64 * n)
            return 0;
    } else if (!strcmp(op, "snprintf")) {
        long s = 0;
        for (long i = 0; i < n; i++)
            __transaction_atomic { s += snprintf(buf64, sizeof buf64, "%d %s", (int)i, name8); }
        char want[64];
        snprintf(want, sizeof want, "%d %s", (int)(n - 1), name8);
        if (s <= 0 || strcmp(buf64, want))
            return 0;
    } else {
        fprintf(stderr, "costs: unknown --op %s\n", op);
        exit(2);
    }
    return 1;
}

int main(int argc, char **argv)
{
    const char *op = NULL;
    long n = 1000000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--op")) {
            op = argv[i + 1];
        } else if (!strcmp(argv[i], "--n")) {
            char *end;
            n = strtol(argv[i + 1], &end, 10);
            if (*end || n < 1) {
                fprintf(stderr, "costs: --n wants a positive number\n");
                return 2;
            }
        } else {
            fprintf(stderr, "costs: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (!op || argc % 2 == 0) {
        fprintf(stderr, "usage: costs --op OP [--n N]\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int ok = run(op, n);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n;
    printf("bench=costs op=%s n=%ld ns_per_op=%.2f ok=%d\n", op, n, ns, ok);
    free(block);
    return ok ? 0 : 1;
}

/* htmcost: what an Intel RTM hardware transaction adds to the code it wraps, on this machine.
 * Adaptive's htm mode (runtime/core/htm.c) runs each transaction of 2+ threads as GCC's
 * uninstrumented code between XBEGIN and XEND, where the biased single thread runs the same code
 * with neither; so 2 threads of transactions this short can make at most 2 x plain / htm of one
 * biased thread's throughput, however few of them conflict. Two shapes, each timed plain and
 * wrapped (one thread, no other thread running, so no conflict; an aborted transaction runs
 * plainly, as the runtime's fallback would: retried in hardware alone it can abort for ever once
 * something clears a page's accessed bit, as DAMON does here, core/htm.c):
 *   lookup: a walk of --depth nodes through an array of --nodes 64-byte nodes from a random one,
 *     each a load that depends on the one before (a search in a tree that fits in the caches);
 *   rmw: one increment of a random word of a --mib MiB array (ssca2's one transaction: a store
 *     that misses the caches, which plain code leaves in the store buffer and moves on, while
 *     XEND waits for it).
 *
 * Output: one line, `bench=htmcost lookup_plain_ns=A lookup_htm_ns=B rmw_plain_ns=C rmw_htm_ns=D
 * aborts=E` (medians of --repeats timings, ns per transaction); `bench=htmcost rtm=0` and exit
 * 0 on a CPU without RTM. */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timing.h"

typedef struct node {
    struct node *next;
    char pad[56];
} node;

static long aborts;

static uint64_t rng(uint64_t *s)
{
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

static inline node *walk(node *n, long depth)
{
    for (long d = 0; d < depth; d++)
        n = *(node *volatile *)&n->next;
    return n;
}

/* ns per transaction of `ops` walks, each from a random node (independent searches: plain
 * code may run the next one's loads while this one's are in flight; a hardware transaction's
 * XEND and the next XBEGIN keep them apart). */
__attribute__((target("rtm"))) static double time_lookup(node *pool, long nodes, long depth,
                                                         long ops, int htm)
{
    uint64_t s = 88172645463325252ull;
    uintptr_t sum = 0;
    double t0 = bench_now();
    for (long o = 0; o < ops; o++) {
        node *n = &pool[rng(&s) % (uint64_t)nodes];
        if (!htm) {
            sum += (uintptr_t)walk(n, depth);
        } else if (_xbegin() == _XBEGIN_STARTED) {
            node *e = walk(n, depth);
            _xend();
            sum += (uintptr_t)e;
        } else {
            aborts++;
            sum += (uintptr_t)walk(n, depth); /* the fallback, which also heals the pages */
        }
    }
    double t = bench_now() - t0;
    if (!sum)
        abort(); /* keeps the walks live */
    return t * 1e9 / (double)ops;
}

__attribute__((target("rtm"))) static double time_rmw(long *w, long words, long ops, int htm)
{
    uint64_t s = 88172645463325252ull;
    double t0 = bench_now();
    for (long o = 0; o < ops; o++) {
        long *p = &w[rng(&s) % (uint64_t)words];
        if (!htm) {
            *(volatile long *)p += 1;
            continue;
        }
        if (_xbegin() == _XBEGIN_STARTED) {
            *(volatile long *)p += 1;
            _xend();
        } else {
            aborts++;
            *(volatile long *)p += 1;
        }
    }
    return (bench_now() - t0) * 1e9 / (double)ops;
}

static long opt(int argc, char **argv, int *i, long lo, long hi)
{
    char *end;
    if (*i + 1 >= argc)
        return -1;
    long v = strtol(argv[++*i], &end, 10);
    return *end || v < lo || v > hi ? -1 : v;
}

int main(int argc, char **argv)
{
    long repeats = 5, ops = 1000000, depth = 16, nodes = 1024, mib = 256;
    for (int i = 1; i < argc; i++) {
        long *dst = !strcmp(argv[i], "--repeats") ? &repeats
                    : !strcmp(argv[i], "--ops")   ? &ops
                    : !strcmp(argv[i], "--depth") ? &depth
                    : !strcmp(argv[i], "--nodes") ? &nodes
                    : !strcmp(argv[i], "--mib")   ? &mib
                                                  : NULL;
        if (!dst || (*dst = opt(argc, argv, &i, 1, 1000000000)) < 0) {
            fprintf(stderr, "usage: htmcost [--repeats N] [--ops N] [--depth N] [--nodes N] "
                            "[--mib N]\n");
            return 2;
        }
    }
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("rtm")) {
        printf("bench=htmcost rtm=0\n");
        return 0;
    }
    /* The nodes in one random cycle, so each load depends on the last and prefetch cannot help. */
    node *pool = aligned_alloc(64, (size_t)nodes * sizeof(node));
    long *perm = malloc((size_t)nodes * sizeof(long)), words = mib << 17;
    long *w = malloc((size_t)words * sizeof(long));
    if (!pool || !perm || !w) {
        fprintf(stderr, "htmcost: out of memory\n");
        return 2;
    }
    uint64_t s = 1;
    for (long i = 0; i < nodes; i++)
        perm[i] = i;
    for (long i = nodes - 1; i > 0; i--) {
        long j = (long)(rng(&s) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    for (long i = 0; i < nodes; i++)
        pool[perm[i]].next = &pool[perm[(i + 1) % nodes]];
    memset(w, 0, (size_t)words * sizeof(long)); /* mapped: a first touch would abort */
    double *r[4];
    for (int k = 0; k < 4; k++)
        r[k] = malloc((size_t)repeats * sizeof(double));
    for (long i = 0; i < repeats; i++) { /* interleaved, plain and wrapped alternately */
        r[0][i] = time_lookup(pool, nodes, depth, ops, 0);
        r[1][i] = time_lookup(pool, nodes, depth, ops, 1);
        r[2][i] = time_rmw(w, words, ops, 0);
        r[3][i] = time_rmw(w, words, ops, 1);
    }
    for (int k = 0; k < 4; k++)
        qsort(r[k], (size_t)repeats, sizeof(double), bench_cmp_double);
    long m = repeats / 2;
    printf("bench=htmcost lookup_plain_ns=%.2f lookup_htm_ns=%.2f rmw_plain_ns=%.2f "
           "rmw_htm_ns=%.2f aborts=%ld depth=%ld nodes=%ld mib=%ld\n",
           r[0][m], r[1][m], r[2][m], r[3][m], aborts, depth, nodes, mib);
    return 0;
}

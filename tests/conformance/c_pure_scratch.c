/* Calls made by transaction_pure code are not part of the transaction, as under libitm: a pure
 * function that mallocs scratch memory, fills and copies it with memset/memcpy, measures it with
 * strlen and frees it, inside a transaction that then cancels, leaves nothing to undo (an undo
 * of those fills wrote into the freed block once the attempt rolled back: the heap corruption
 * of PARSEC dedup's port, whose pure compress() does this through zlib); and a pure function's
 * writes to memory it keeps (a cache) survive the cancel. The transaction's own fill loop, which
 * GCC turns into a memset call too, is still undone by the cancel (tmkit: abi/interpose.c, who
 * called). Rounds alternate with a plain malloc/memset of the same size, which reuses the freed
 * scratch block, and check that block. */
#include "harness.h"

size_t n = 4096; /* not static: its calls stay calls to memset and memcpy */
static char cache[64];
static char shared[256];
static volatile size_t sink;

__attribute__((transaction_pure, noipa)) static void scratch(int round)
{
    char *p = malloc(n), *q = malloc(n);
    if (!p || !q)
        abort();
    memset(p, 'a' + round % 26, n - 1);
    p[n - 1] = 0;
    memcpy(q, p, n);
    sink = strlen(q);
    memset(cache, '0' + round % 10, sizeof cache - 1); /* kept: not rolled back */
    free(p);
    free(q);
}

__attribute__((transaction_safe, noipa)) static void fill(char *d, size_t len, char c)
{
    for (size_t i = 0; i < len; i++)
        d[i] = c; /* becomes memset(d, c, len): the transaction's own write */
}

int main(void)
{
    th_check_runtime();
    memset(shared, '.', sizeof shared);
    for (int round = 0; round < 50; round++) {
        __transaction_atomic {
            shared[0] = 'x';
            scratch(round);
            fill(shared + 1, sizeof shared - 2, 'y');
            if (round % 2 == 0)
                __transaction_cancel;
        }
        char want = round % 2 ? 'y' : '.';
        CHECK_EQ(shared[0], round % 2 ? 'x' : '.'); /* committed, or cancelled */
        CHECK_EQ(shared[1], want);
        CHECK_EQ(shared[sizeof shared - 2], want);
        memset(shared, '.', sizeof shared);
        CHECK_EQ(sink, n - 1);                         /* strlen in pure code */
        CHECK_EQ(cache[0], '0' + round % 10);          /* the pure function's cache: kept */
        CHECK_EQ(cache[sizeof cache - 2], '0' + round % 10);
        char *r = malloc(n); /* likely the scratch block */
        memset(r, 0, n);
        for (size_t i = 0; i < n; i++)
            CHECK_EQ(r[i], 0); /* nothing rolled back into a block freed by pure code */
        free(r);
    }
    puts("ok");
    return 0;
}

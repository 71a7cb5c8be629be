/* transaction_pure code on memory the transaction wrote through barriers, under concurrency:
 * each thread formats into its own line with a pure snprintf wrapper after writing the line
 * through barriers, and checks it with a pure checksum; every transaction also increments one
 * shared counter. Write-through runtimes (libitm's methods, tmkit's default) keep both the
 * pure function's bytes and its view of the transaction's writes; a redo log keeps neither,
 * whatever the runtime does, so NOrec and orec_lazy fail this. */
// TMTEST: fails=norec,orec_lazy:pure code cannot be seen by a redo log
// TMTEST: threads=1,2
#include "harness.h"

#define MAXT 64

struct line {
    char text[48];
    unsigned sum;
    char pad[64 - 48 - sizeof(unsigned)];
};
static struct line lines[MAXT];
static long counter;
static long iters;

__attribute__((transaction_pure, noinline)) static void fmt(char *d, size_t n, int id, long v)
{
    snprintf(d, n, "t%d:%ld", id, v);
}

__attribute__((transaction_pure, noinline)) static unsigned cksum(const char *p)
{
    unsigned s = 0;
    while (*p)
        s = s * 31 + (unsigned char)*p++;
    return s;
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    struct line *l = &lines[id];
    for (long it = 0; it < iters; it++) {
        __transaction_atomic {
            for (int i = 0; i < 20; i++)
                l->text[i] = (char)('a' + (i + it) % 26);
            l->text[20] = 0;
            l->sum = cksum(l->text); /* reads what the transaction wrote */
            fmt(l->text, sizeof l->text, id, it); /* writes over it */
            counter++;
        }
        char want[48], pre[21];
        snprintf(want, sizeof want, "t%d:%ld", id, it);
        if (strcmp(l->text, want) != 0) {
            fprintf(stderr, "thread %d: '%s' after commit, want '%s'\n", id, l->text, want);
            exit(1);
        }
        unsigned s = 0;
        for (int i = 0; i < 20; i++)
            pre[i] = (char)('a' + (i + it) % 26);
        pre[20] = 0;
        for (const char *p = pre; *p; p++)
            s = s * 31 + (unsigned char)*p;
        CHECK_EQ(l->sum, s);
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
    puts("ok");
    return 0;
}

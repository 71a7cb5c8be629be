/* alloc_reuse.c: a doomed NOrec transaction gets from malloc the node it is still reading, and
 * its reads of the new node come from its own redo log, so it never revalidates.
 *
 * Each round: head -> X (one 16-byte node). The main thread's transaction reads head (X) and
 * X->val, then (transaction_pure handshake, first attempt of the round only) lets thread B run
 * `head = NULL; free(X)` in a transaction and waits up to 50 ms for B to say it committed.
 * B's tcache for the size is full, so free(X) puts X in the main arena's fastbin, and the
 * main thread's malloc of the same size (its own tcache emptied) returns X. Then the main
 * transaction allocates q, writes q->val and q->next = X, and walks the list from q.
 *   - A runtime that quiesces before running the commit's frees (libitm; tmkit orec_*), or that
 *     validates the snapshot when the allocator runs, never gives the attempt q == X: the
 *     handshake times out (the free waits for this transaction) or the attempt restarts.
 *   - tmkit norec: q == X, q->next == q in the redo log, and the walk loops: every read hits
 *     the write set, none goes to memory, so nothing ever checks the clock. Bounded here by
 *     WALK_LIMIT steps; the transmem red-black tree has no bound and spins forever.
 * With the argument `priv`, B unlinks X in its transaction and frees it after the commit
 * (privatization, then a plain free): same outcome.
 * Exit 1 if any round saw the alias after its writes or the endless walk.
 * Build: gcc -O2 -fgnu-tm -pthread alloc_reuse.c -o alloc_reuse (glibc malloc with tcache).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 100
#define WALK_LIMIT 100000L

struct node {
    struct node *next;
    long val;
};

struct node *head; /* not static, and set outside main's loop: the transaction must read it */
static atomic_int reader_at, freed, done_round; /* round numbers */
static int round_no;
static long alias_seen, walk_endless;
static int privatize; /* argument "priv": B frees X after its transaction, not in it */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Inside the main transaction: once per round, let B free X and wait (bounded) for it. */
__attribute__((transaction_pure)) static void handshake(void)
{
    if (atomic_load(&reader_at) == round_no)
        return;
    atomic_store(&reader_at, round_no);
    double t0 = now_s();
    while (atomic_load(&freed) != round_no && now_s() - t0 < 0.05)
        ;
}

__attribute__((transaction_pure)) static void note_alias(void) { alias_seen++; }
__attribute__((transaction_pure)) static void note_walk(void) { walk_endless++; }

__attribute__((noinline)) static void setup_round(int r)
{
    struct node *x = malloc(16);
    x->next = NULL;
    x->val = 7;
    head = x;
    round_no = r;
    __asm__ volatile("" ::: "memory");
}

static void *thread_b(void *arg)
{
    (void)arg;
    for (int r = 1; r <= ROUNDS; r++) {
        while (atomic_load(&reader_at) != r)
            ;
        /* fill this thread's tcache for 16-byte chunks: free(X) then goes to X's arena */
        void *t[7];
        for (int i = 0; i < 7; i++)
            t[i] = malloc(16);
        for (int i = 0; i < 7; i++)
            free(t[i]);
        if (privatize) { /* unlink in a transaction, free outside it */
            struct node *x;
            __transaction_atomic {
                x = head;
                head = NULL;
            }
            free(x);
        } else {
            __transaction_atomic {
                struct node *x = head;
                head = NULL;
                free(x); /* deferred to the commit */
            }
        }
        atomic_store(&freed, r);
        while (atomic_load(&done_round) != r)
            ;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    privatize = argc > 1 && argv[1][0] == 'p';
    pthread_t b;
    pthread_create(&b, NULL, thread_b, NULL);
    for (int r = 1; r <= ROUNDS; r++) {
        /* empty this thread's tcache for the size (kept allocated: a small leak) */
        for (int i = 0; i < 8; i++)
            (void)!malloc(16);
        setup_round(r);
        __transaction_atomic {
            struct node *p = head;
            if (p) {
                long v = p->val;
                handshake();
                struct node *q = malloc(sizeof *q);
                q->val = v + 1;
                q->next = p;
                long k = 0;
                for (struct node *n = q; n && k < WALK_LIMIT; n = n->next)
                    k++;
                if (k >= WALK_LIMIT)
                    note_walk();
                if (q == p)
                    note_alias();
                head = q;
            }
        }
        atomic_store(&done_round, r);
        /* what is left linked was never freed by B (it ran first, or this round timed out) */
        head = NULL;
    }
    pthread_join(b, NULL);
    printf("%s, rounds %d: malloc returned the node still in the view %ld, endless walk %ld -> %s\n",
           privatize ? "free after privatizing" : "free in the transaction", ROUNDS, alias_seen, walk_endless, alias_seen || walk_endless ? "FAIL" : "ok");
    return alias_seen || walk_endless ? 1 : 0;
}

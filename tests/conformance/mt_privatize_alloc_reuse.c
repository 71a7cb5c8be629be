/* A doomed attempt must notice it is doomed even when all its reads hit its own writes. NOrec
 * does not quiesce (its doomed attempts only read; faultguard.c), so a commit's free can hand a
 * node to an older attempt's malloc while that attempt still sees the node linked: it links its
 * "new" node to itself and then reads only its redo log. Each round: head -> X; the main
 * thread's transaction reads head and X->val, lets thread B unlink X and free it (in B's
 * transaction, or on odd rounds after it: a privatization, then a plain free), mallocs q
 * (glibc's tcache arrangement below makes that X under a runtime that lets it), sets q->next =
 * X and walks the list from q, bounded by WALK_LIMIT. Fails if a walk hit the bound or any
 * attempt saw q == X after its writes without restarting. tmkit NOrec before 2026-11-26 failed
 * every round (its reads from the redo log never looked at the clock: algo/norec.c); libitm and
 * the quiescing algorithms never give the attempt X. Found by reducing a hang of transmem's
 * red-black tree at 8 threads (bench/results/third-party/, transmem). Relies on
 * glibc malloc's per-thread cache for the reuse; without it the test passes trivially. */
// TMTEST: libitm-div=4
// TMTEST: o0-div=4
#include "harness.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 40 /* th_iters (10 at -O0): a serial runtime waits 50 ms a round for B (handshake) */
#define WALK_LIMIT 100000L

struct node {
    struct node *next;
    long val;
};

struct node *head; /* not static, and set outside main's loop: the transaction must read it */
static atomic_int reader_at, freed, done_round; /* round numbers */
static int rounds;
static int round_no;
static long alias_seen, walk_endless;
static int privatize; /* odd rounds: B frees X after its transaction, not in it */

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
    for (int r = 1; r <= rounds; r++) {
        while (atomic_load(&reader_at) < r)
            ;
        privatize = r & 1;
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
        while (atomic_load(&done_round) < r)
            ;
    }
    return NULL;
}

int main(void)
{
    th_check_runtime();
    rounds = (int)th_iters(ROUNDS);
    pthread_t b;
    pthread_create(&b, NULL, thread_b, NULL);
    for (int r = 1; r <= rounds; r++) {
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
        /* a serial runtime runs B's transaction only after ours: wait for it, rounds in step */
        while (atomic_load(&freed) < r)
            ;
        /* what is left linked was never freed by B (it ran first, or this round timed out) */
        head = NULL;
    }
    pthread_join(b, NULL);
    if (alias_seen || walk_endless) {
        fprintf(stderr, "rounds %d: malloc returned the node still in the view %ld times, "
                        "endless walks %ld\n", rounds, alias_seen, walk_endless);
        return 1;
    }
    puts("ok");
    return 0;
}

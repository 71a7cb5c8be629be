/* malloc failing inside transactions (docs/reliability.md, "Faults"), under the
 * algorithm TMKIT_ALGO names:
 *  1. the transaction's malloc (_ITM_malloc, GCC's call for malloc in a transaction) and
 *     tmkit.h's strdup return NULL to the program; the transaction commits what it wrote;
 *  2. a sweep: a big transaction (WORDS words read and written, OBJS allocations: every log
 *     grows past its first capacity, and the action list too) runs once per point while its
 *     thread's Nth allocation call fails, or the Nth and every later one, with other threads
 *     transacting beside it (so it runs speculatively where the algorithm can), for every N
 *     up to 4 past the most calls a run without a failure made. Whatever
 *     fails (a malloc of the program's: NULL; a log's growth: the attempt restarts
 *     serial-irrevocable), the transaction commits exactly once, every object it got holds
 *     what it wrote, and every block its thread allocated is freed once the program freed its
 *     objects and the thread exited (the runtime's logs go with the thread);
 *  3. a transaction that can cancel cannot run without its undo log: when the log cannot
 *     grow the process stops with a message naming the log (SIGABRT), checked in a child;
 *  4. a thread whose every allocation fails from its second transaction on goes on
 *     transacting, against another thread on the same words, for SHARED_MS: adaptive changes
 *     modes meanwhile (all of them under TMKIT_ADAPTIVE_MODES=all), and a mode the thread has
 *     not run before needs no allocation at its begin (the orec lock records once did: a
 *     fresh-clone make test stopped on "out of memory growing the orec lock records").
 *     Every increment of both threads lands exactly once.
 * Prints one line of figures per part (tests/fault/CMakeLists.txt; bench/results/fault/). */
#include "fault_inject.h"
#include "harness.h"
#include <signal.h>
#include <sys/wait.h>
#include <tmkit.h>

enum { WORDS = 4096, OBJS = 40, SWEEP_MAX = 96, SHARED = 8, SHARED_MS = 400 };

static long arr[WORDS];      /* every committed big transaction adds 1 to each word */
static void *objs[OBJS];     /* the big transaction's allocations (written in it) */
static long attempts;        /* attempts of the big transaction (pure: never rolled back) */
static long bg_count;        /* the trial threads' warm-ups and part 1 */
static long bg_own[64 * 8];  /* each helper's transactions, a cache line each (no conflicts) */
static long shared[SHARED];  /* part 4: both threads add 1 to every word in each transaction */
static volatile int stop;
int never_cancel;            /* never set: GCC must assume it may be */

static TH_PURE void note_attempt(void) { attempts++; }

static void big_tx(void)
{
    __transaction_atomic {
        note_attempt();
        for (int i = 0; i < WORDS; i++)
            arr[i] += 1;
        for (int k = 0; k < OBJS; k++) {
            long *p = (long *)malloc(48);
            if (p)
                *p = k;
            objs[k] = p;
        }
    }
}

static void *helper(void *arg)
{
    long *own = &bg_own[(intptr_t)arg * 8];
    long mine = 0;
    while (!stop) {
        __transaction_atomic { (*own)++; }
        mine++;
    }
    return (void *)mine;
}

struct trial {
    long nth;
    int every;
    long nulls, attempts, failed, calls;
};

static void *trial_thread(void *arg)
{
    struct trial *t = (struct trial *)arg;
    __transaction_atomic { bg_count += 0; } /* the descriptor and its first state, unarmed */
    long failed0 = fault_failed();
    attempts = 0;
    fault_track(1);
    fault_arm(t->nth, t->every);
    big_tx();
    t->calls = fi_count;
    fault_disarm();
    t->failed = fault_failed() - failed0;
    t->attempts = attempts;
    for (int k = 0; k < OBJS; k++) {
        if (!objs[k])
            t->nulls++;
        else
            CHECK_EQ(*(long *)objs[k], k);
        free(objs[k]);
        objs[k] = NULL;
    }
    fault_track(0);
    return NULL;
}

/* Part 1: the transaction's malloc and tmkit.h's strdup see the failure. */
static void part_null(void)
{
    long v = 0;
    void *p = (void *)1;
    char *s = (char *)1;
    __transaction_atomic { bg_count += 0; } /* the thread's descriptor, unarmed */
    fault_arm(1, 1);
    __transaction_atomic {
        p = malloc(64);
        s = strdup("fault");
        v = ++bg_count;
    }
    fault_disarm();
    CHECK(p == NULL);
    CHECK(s == NULL);
    CHECK_EQ(v, bg_count); /* the transaction committed its write */
    printf("fault_malloc: tx malloc NULL=%d strdup NULL=%d\n", p == NULL, s == NULL);
}

/* Part 4: `arg` non-null arms the thread after its first transaction; returns its commits. */
static void *shared_thread(void *arg)
{
    __transaction_atomic { shared[0] += 0; } /* the descriptor and its first state, unarmed */
    long failed0 = fault_failed();
    if (arg)
        fault_arm(1, 1);
    long n = 0;
    double end = th_now() + SHARED_MS / 1000.0;
    while (th_now() < end) {
        for (int k = 0; k < 64; k++) {
            __transaction_atomic {
                for (int i = 0; i < SHARED; i++)
                    shared[i] += 1;
            }
        }
        n += 64;
    }
    if (arg) {
        fault_disarm();
        *(long *)arg = fault_failed() - failed0;
    }
    return (void *)n;
}

static void part_shared(void)
{
    long failed = 0;
    pthread_t a, b;
    void *na, *nb;
    CHECK(pthread_create(&a, NULL, shared_thread, &failed) == 0);
    CHECK(pthread_create(&b, NULL, shared_thread, NULL) == 0);
    CHECK(pthread_join(a, &na) == 0);
    CHECK(pthread_join(b, &nb) == 0);
    for (int i = 0; i < SHARED; i++)
        CHECK_EQ(shared[i], (long)na + (long)nb);
    printf("fault_malloc: every allocation failing in one of two threads: %ld + %ld commits, "
           "%ld failed calls\n",
           (long)na, (long)nb, failed);
}

/* Part 3, in a child: a cancellable transaction whose undo log cannot grow stops the process
 * with the runtime's message. */
static void part_cancellable(void)
{
    int fd[2];
    CHECK(pipe(fd) == 0);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(fd[1], 2);
        close(fd[0]);
        __transaction_atomic { bg_count += 0; }
        fault_arm(1, 1);
        __transaction_atomic {
            for (int i = 0; i < WORDS; i++)
                arr[i] += 1;
            if (never_cancel)
                __transaction_cancel;
        }
        fault_disarm();
        _exit(0); /* the log grew after all: the parent reports it */
    }
    close(fd[1]);
    char buf[1024];
    size_t n = 0;
    ssize_t r;
    while (n < sizeof buf - 1 && (r = read(fd[0], buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = 0;
    close(fd[0]);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT)) {
        fprintf(stderr, "cancellable transaction without its log: status 0x%x, stderr '%s'\n", st,
                buf);
        exit(1);
    }
    CHECK(strstr(buf, "tmkit: out of memory growing the ") != NULL);
    char *nl = strchr(buf, '\n');
    if (nl)
        *nl = 0;
    printf("fault_malloc: cancellable tx, log cannot grow: SIGABRT, '%s'\n", buf);
}

int main(void)
{
    th_check_runtime();
    part_cancellable();
    part_null();
    part_shared();

    int nh = th_threads() - 1;
    if (nh < 1)
        nh = 1;
    if (nh > 64)
        nh = 64;
    pthread_t *h = (pthread_t *)calloc((size_t)nh, sizeof *h);
    CHECK(h != NULL);
    for (int i = 0; i < nh; i++)
        CHECK(pthread_create(&h[i], NULL, helper, (void *)(intptr_t)i) == 0);

    long base = arr[0], trials = 0, with_nulls = 0, restarted = 0, failed_calls = 0;
    long max_failed = 0, leaks = 0;
    long before = fault_live();
    /* A point with no failure counts the allocation calls of the big transaction's thread:
     * the sweep covers each of them (and a few more, where nothing fails). */
    struct trial count = {1L << 60, 0, 0, 0, 0, 0};
    pthread_t th0;
    CHECK(pthread_create(&th0, NULL, trial_thread, &count) == 0);
    CHECK(pthread_join(th0, NULL) == 0);
    trials++;
    CHECK_EQ(count.failed, 0);
    CHECK_EQ(count.nulls, 0);
    /* The number of calls depends on the mode each attempt runs in (a speculative one logs, a
     * biased or serial one does not): the sweep covers at least 64 calls, and goes on to 4 past
     * the most calls a point without a failure made. */
    long most = count.calls > 64 ? count.calls : 64; /* orec_eager's logging attempt: 63 */
    for (int every = 0; every <= 1; every++)
        for (long nth = 1; nth <= most + 4; nth++) {
            CHECK(nth <= SWEEP_MAX);
            struct trial t = {nth, every, 0, 0, 0, 0};
            pthread_t th;
            CHECK(pthread_create(&th, NULL, trial_thread, &t) == 0);
            CHECK(pthread_join(th, NULL) == 0);
            trials++;
            /* exactly one commit of the big transaction: every word moved by one */
            for (int i = 0; i < WORDS; i++)
                if (arr[i] != base + trials) {
                    fprintf(stderr, "nth=%ld every=%d: arr[%d]=%ld, want %ld\n", nth, every, i,
                            arr[i], base + trials);
                    exit(1);
                }
            if (fault_live() != before) {
                fprintf(stderr, "nth=%ld every=%d: %ld blocks of the thread not freed\n", nth,
                        every, fault_live() - before);
                leaks++;
                before = fault_live();
            }
            if (t.failed == 0 && t.calls > most) /* a point past the end: the whole count */
                most = t.calls;
            with_nulls += t.nulls > 0;
            restarted += t.attempts > 1;
            failed_calls += t.failed;
            if (t.failed > max_failed)
                max_failed = t.failed;
        }
    stop = 1;
    for (int i = 0; i < nh; i++) {
        void *r;
        CHECK(pthread_join(h[i], &r) == 0);
        CHECK_EQ(bg_own[i * 8], (long)r); /* every helper's commits, once each */
    }
    free(h);
    CHECK_EQ(bg_count, 1); /* part 1's increment (the warm-ups add 0) */
    CHECK_EQ(leaks, 0);
    CHECK(failed_calls > 0);
    printf("fault_malloc: big transaction: %ld allocation calls unfailed (first run), at most %ld; sweep of "
           "%ld points: %ld saw NULL, %ld restarted (a log could not grow), %ld failed calls, "
           "0 leaks\n",
           count.calls, most, trials - 1, with_nulls, restarted, failed_calls);
    return 0;
}

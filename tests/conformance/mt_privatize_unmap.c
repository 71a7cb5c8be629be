/* Privatize, then unmap: a doomed reader loads from memory the privatizer gave back to the
 * kernel, and faults (core/faultguard.c).
 *
 * Each round the main thread maps a page, fills it, publishes it through `shared` and waits
 * until the reader has loaded the pointer inside its transaction (a transaction_pure handshake
 * that then waits up to 100 ms, or 5 s where main must not wait, for the page to go away).
 * Main unlinks the page in a transaction, munmaps it and says so. Then the reader loads from the page:
 *  - with quiescence, main's commit waits for the reader: the handshake times out, the page is
 *    still mapped and the reader reads the filled value;
 *  - with the fault guard (NOrec, gl_wt under TMKIT_PRIVATIZATION=auto), main does not wait:
 *    the load faults and the attempt restarts, this time finding `shared` == NULL.
 * Any other outcome (a crash, a value other than the fill, a NULL without a restart) fails.
 * TEST_THREADS - 2 noise threads commit unrelated writers meanwhile (about one each 20 us),
 * moving the clocks.
 *
 * Three forked children each run the rounds, under different signal setups:
 *  1. nothing installed: under tmkit norec/gl_wt no round may time out (no quiescence) and
 *     every round must end on the NULL path;
 *  2. the program installs its own SIGSEGV handler after its first transaction, replacing the
 *     guard: writers must quiesce again (every round times out under tmkit);
 *  3. the program's handler is installed before the first transaction; a genuine fault in a
 *     transaction (a page unmapped without any transaction involved) must reach it, with the
 *     right address; and with no handler at all, a genuine fault must still kill the child
 *     with SIGSEGV while another thread keeps the clock moving.
 */
// TMTEST: timeout=120
// TMTEST: libitm-div=4
// TMTEST: o0-div=4
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "harness.h"

#define ROUNDS 8 /* th_iters: 2 under libitm (quiescence makes each round wait 100 ms) and at -O0 */
#define WORDS 512
#define FILL(r, k) (((long)(r) << 20) + (k) * 3 + 1)

static long *shared;
static _Atomic int published = -1, have_p = -1, unmapped = -1, finished = -1;
static _Atomic int stop_noise;
static long noise_cell[64][8];
static int strict;       /* tmkit with a fault-guarded algorithm under TMKIT_PRIVATIZATION=auto */
static int expect_guard; /* this scenario: no quiescence, every round restarts after a fault */

/* Reader-side per-round state, touched only by the reader thread (outside the TM's view). */
static int hs_round = -1, hs_timed_out, attempts;
static int rounds; /* th_iters(ROUNDS), set before the children fork */

__attribute__((transaction_pure)) static void note_attempt(void) { attempts++; }

/* The first attempt of a round that sees the page waits for main to unmap it: at most 100 ms
 * where main's commit may wait for us (quiescence), or 5 s where it must not (the fault guard:
 * then only a descheduled main takes longer than 100 ms, as on a loaded machine, and a commit
 * that wrongly waits still shows as a timeout). */
__attribute__((transaction_pure)) static void handshake(int round)
{
    if (hs_round == round)
        return;
    hs_round = round;
    atomic_store(&have_p, round);
    double t0 = th_now();
    while (atomic_load(&unmapped) != round)
        if (th_now() - t0 > (expect_guard ? 5.0 : 0.1)) {
            hs_timed_out = 1;
            return;
        }
}

static void *reader(void *arg)
{
    (void)arg;
    for (int r = 0; r < rounds; r++) {
        while (atomic_load(&published) != r)
            ;
        hs_timed_out = 0;
        attempts = 0;
        long v = 0;
        int saw = 0, k = (r * 37) % WORDS;
        __transaction_atomic {
            note_attempt();
            long *p = shared;
            saw = p != NULL;
            if (p) {
                handshake(r);
                v = p[k];
            }
        }
        if (saw) {
            CHECK_EQ(v, FILL(r, k));
        } else {
            CHECK(hs_round == r); /* the NULL path only after the page was seen */
            CHECK(attempts >= 2);
        }
        if (expect_guard) {
            CHECK(!hs_timed_out); /* main's commit did not wait for us */
            CHECK(!saw);
        }
        atomic_store(&finished, r);
    }
    return NULL;
}

static void *noise(void *arg)
{
    long *c = noise_cell[(intptr_t)arg % 64];
    /* Sparse: back-to-back writers would make main's own writer fall back to the serial lock
     * (contention management), which waits for the reader just as quiescence would. */
    while (!atomic_load(&stop_noise)) {
        __transaction_atomic { c[0]++; }
        usleep(20);
    }
    return NULL;
}

/* Main's side of the rounds; `quiesce_expected`: every handshake must time out. */
static void run_rounds(int quiesce_expected)
{
    int nnoise = th_threads() > 2 ? th_threads() - 2 : 0;
    pthread_t rd, nz[64];
    CHECK(pthread_create(&rd, NULL, reader, NULL) == 0);
    for (int i = 0; i < nnoise && i < 64; i++)
        CHECK(pthread_create(&nz[i], NULL, noise, (void *)(intptr_t)i) == 0);
    int timeouts = 0;
    for (int r = 0; r < rounds; r++) {
        long *page = mmap(NULL, WORDS * sizeof(long), PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(page != MAP_FAILED);
        for (int k = 0; k < WORDS; k++)
            page[k] = FILL(r, k);
        __transaction_atomic { shared = page; }
        atomic_store(&published, r);
        while (atomic_load(&have_p) != r)
            ;
        __transaction_atomic { shared = NULL; }
        CHECK(munmap(page, WORDS * sizeof(long)) == 0); /* privatized: ours to give back */
        atomic_store(&unmapped, r);
        while (atomic_load(&finished) != r)
            ;
        timeouts += hs_timed_out;
    }
    atomic_store(&stop_noise, 1);
    CHECK(pthread_join(rd, NULL) == 0);
    for (int i = 0; i < nnoise && i < 64; i++)
        CHECK(pthread_join(nz[i], NULL) == 0);
    fprintf(stderr, "rounds in which the unlinking writer waited for the reader: %d of %d\n",
            timeouts, rounds);
    if (quiesce_expected)
        CHECK_EQ(timeouts, rounds);
}

static long *fault_target;
static void program_handler(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    _exit(sig == SIGSEGV && si->si_addr == (void *)fault_target ? 42 : 43);
}

static void install_program_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = program_handler;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
}

/* A genuine fault: the page was unmapped with no transaction involved. Noise threads keep the
 * clock moving, so the guard sees a doomed attempt each time until the transaction runs
 * serially; the fault must then reach the program's handler or the default action. */
static void genuine_fault(void)
{
    long *page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED);
    CHECK(munmap(page, 4096) == 0);
    pthread_t nz;
    CHECK(pthread_create(&nz, NULL, noise, (void *)(intptr_t)1) == 0);
    fault_target = page + 5;
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* the handler compares against it */
    long v = 0;
    __transaction_atomic { v = *fault_target; }
    fprintf(stderr, "genuine fault was swallowed (read %ld)\n", v);
    exit(1);
}

static int child_status(void (*body)(int), int arg)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core); /* scenario 4 dies of SIGSEGV on purpose */
        body(arg);
        exit(0);
    }
    int st;
    for (int i = 0; i < 600 && waitpid(pid, &st, WNOHANG) == 0; i++)
        usleep(50000);
    if (waitpid(pid, &st, WNOHANG) == 0 && kill(pid, SIGKILL) == 0) {
        waitpid(pid, &st, 0);
        fprintf(stderr, "child %d hung\n", arg);
        exit(1);
    }
    return st;
}

static void scenario(int which)
{
    long warm = 0;
    switch (which) {
    case 1:
        expect_guard = strict;
        run_rounds(0);
        break;
    case 2:
        __transaction_atomic { warm++; } /* the runtime sets up its handler here */
        install_program_handler();
        run_rounds(strict);
        break;
    case 3:
        install_program_handler();
        genuine_fault();
        break;
    case 4:
        genuine_fault();
        break;
    }
    (void)warm;
}

int main(void)
{
    th_check_runtime();
    rounds = (int)th_iters(ROUNDS);
    const char *rt = getenv("EXPECT_RUNTIME"), *algo = getenv("TMKIT_ALGO");
    const char *priv = getenv("TMKIT_PRIVATIZATION");
    strict = rt && strcmp(rt, "tmkit") == 0 && algo &&
             (strcmp(algo, "norec") == 0 || strcmp(algo, "gl_wt") == 0) &&
             (!priv || strcmp(priv, "auto") == 0);
    int st = child_status(scenario, 1);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    st = child_status(scenario, 2);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    st = child_status(scenario, 3);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 42);
    st = child_status(scenario, 4);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
    return 0;
}

/* A small use of each API of <tmkit.h>, as a program built with strict warnings writes it
 * (check.sh compiles it under them in every C mode: see CMakeLists.txt), and then run
 * (check.sh run): on tmkit, where the runtime's paths serve it, and on the system libitm, where
 * the headers' fallbacks do. Exits 0 when every value is as expected.
 * EXPECT_RUNTIME=tmkit|libitm: fail if the other runtime served the program. */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tmkit.h>

static int failures;
#define CHECK(c)                                                                            \
    do {                                                                                    \
        if (!(c)) {                                                                         \
            fprintf(stderr, "use.c:%d: failed: %s\n", __LINE__, #c);                        \
            failures++;                                                                     \
        }                                                                                   \
    } while (0)

/* ---- tm_atomic_* ---- */
static long refs;
static int flags_word;
static char *slot;

static void use_atomics(void)
{
    static char text[] = "x";
    char *expected = NULL;
    long before;
    tm_atomic_fetch_add(&refs, 2); /* outside: a one-word transaction */
    __transaction_atomic {
        before = tm_atomic_fetch_add(&refs, 1); /* inside: part of this one */
        tm_atomic_fetch_or(&flags_word, 4);
    }
    CHECK(before == 2);
    CHECK(tm_atomic_load(&refs) == 3);
    CHECK(tm_atomic_fetch_sub(&refs, 3) == 3);
    CHECK(tm_atomic_load(&flags_word) == 4);
    CHECK(tm_atomic_compare_exchange(&slot, &expected, text) == 1);
    CHECK(tm_atomic_exchange(&slot, NULL) == text);
}

/* ---- tm_counter_t ---- */
static tm_counter_t hits = TM_COUNTER_INITIALIZER;

static void use_counters(void)
{
    long seen;
    __transaction_atomic {
        tm_counter_add(&hits, 3);
        seen = tm_counter_read(&hits); /* the transaction's own additions count */
    }
    tm_counter_add(&hits, 4);
    CHECK(seen == 3);
    CHECK(tm_counter_read(&hits) == 7);
}

/* ---- tm_retry, tm_cond_t: a waiter and a thread that wakes it ---- */
static long item;
static int ready;
static tm_cond_t ready_cond = TM_COND_INITIALIZER;

static void *waker(void *arg)
{
    (void)arg;
    __transaction_atomic { item = 42; }
    __transaction_atomic {
        ready = 1;
        tm_cond_signal(&ready_cond); /* takes effect at the commit */
    }
    return NULL;
}

/* What the waits saw. Not locals: a local set before a tm_atomic_retry loop and again inside
 * it draws GCC's -Wclobbered (the transaction's begin returns twice), or without the first set
 * -Wmaybe-uninitialized; that is the program's code, not the header's. */
static long got;
static int seen, timed_out;

static void use_waits(void)
{
    pthread_t t;
    CHECK(pthread_create(&t, NULL, waker, NULL) == 0);
    tm_atomic_retry {
        if (item == 0)
            tm_retry(); /* sleeps until item changes */
        got = item;
    }
    tm_atomic_retry {
        if (!ready)
            tm_cond_wait(&ready_cond);
        seen = ready;
    }
    pthread_join(t, NULL);
    tm_deadline_t deadline = tm_deadline_in(1000000); /* 1 ms */
    tm_atomic_retry {
        if (item != -1) /* never: the deadline passes */
            tm_retry_until(deadline);
        timed_out = item != -1;
    }
    CHECK(got == 42);
    CHECK(seen == 1);
    CHECK(timed_out == 1);
}

/* ---- tm_group_t ---- */
static tm_group_t log_group = TM_GROUP_INITIALIZER, other_group = TM_GROUP_INITIALIZER;
static long logged;

static void use_groups(void)
{
    tm_group_enter(&log_group, &other_group);
    __transaction_atomic { logged++; }
    tm_group_exit(&log_group, &other_group);
    tm_group_lock(&log_group);
    logged++; /* the non-revocable section */
    tm_group_unlock(&log_group);
    CHECK(logged == 2);
}

/* ---- the transaction-safe libc: GCC compiles these calls in an atomic transaction only if
 * it picks the wrappers ---- */
/* A transaction_safe function's type differs from qsort's parameter (docs/libc.md). */
#define CMP(f) ((int (*)(const void *, const void *))(f))
__attribute__((transaction_safe)) static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static char name[16] = "tmkit";
static char out[32];
static int numbers[5] = {4, 1, 5, 2, 3};

static void use_libc(void)
{
    size_t len;
    int n, upper;
    __transaction_atomic {
        tm_no_privatization(); /* nothing here is made private */
        len = strlen(name);
        n = snprintf(out, sizeof out, "%s=%d", name, 42);
        qsort(numbers, 5, sizeof numbers[0], CMP(compare_ints));
        upper = toupper(name[0]);
    }
    CHECK(len == 5);
    CHECK(n == 8 && strcmp(out, "tmkit=42") == 0);
    CHECK(numbers[0] == 1 && numbers[4] == 5);
    CHECK(upper == 'T');
}

/* ---- tm_on_commit, tm_on_abort (C: -Og and above) ---- */
#ifdef __OPTIMIZE__
static long committed, aborted, bare_runs;

static void use_handlers_bare(void)
{
    __transaction_atomic {
        tm_on_commit() { bare_runs++; } /* no captures: nothing to shadow */
    }
}

/* A captured name shadows the local it copies, by design (tmkit.h): -Wshadow is off here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
static void use_handlers(void)
{
    long v = 5, w = 7;
    int cancel = 1;
    __transaction_atomic {
        tm_on_commit(v, w) { committed = v * 10 + w; }
        v = 6; /* after registration: the handler keeps 5 */
    }
    __transaction_atomic {
        tm_on_abort(w) { aborted = w; }
        tm_on_commit(w) { committed = -w; }
        if (cancel)
            __transaction_cancel;
    }
    tmkit_compiler_barrier(); /* the abort handler wrote memory GCC thinks a cancel kept */
    use_handlers_bare();
    CHECK(committed == 57);
    CHECK(aborted == 7);
    CHECK(bare_runs == 1);
    CHECK(v == 6);
}
#pragma GCC diagnostic pop
#endif

int main(void)
{
    const char *want = getenv("EXPECT_RUNTIME");
    int on_tmkit = tmkit_counter_add != NULL; /* weak: absent on GCC's libitm */
    if (want && strcmp(want, on_tmkit ? "tmkit" : "libitm") != 0) {
        fprintf(stderr, "use.c: expected %s, runs on %s\n", want, on_tmkit ? "tmkit" : "libitm");
        return 3;
    }
    use_atomics();
    use_counters();
    use_waits();
    use_groups();
    use_libc();
#ifdef __OPTIMIZE__
    use_handlers();
#endif
    if (failures)
        return 1;
    printf("use.c: ok on %s\n", on_tmkit ? "tmkit" : "libitm");
    return 0;
}

// The C++ side of use.c: each API of <tmkit.h> that C++ has (the transaction-safe libc is C
// only), compiled by check.sh under g++'s strict warnings and run on tmkit and on the system
// libitm. Exits 0 when every value is as expected.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>

#include <tmkit.h>

static int failures;
#define CHECK(c)                                                                            \
    do {                                                                                    \
        if (!(c)) {                                                                         \
            std::fprintf(stderr, "use.cc:%d: failed: %s\n", __LINE__, #c);                  \
            failures++;                                                                     \
        }                                                                                   \
    } while (0)

static long refs;
static char *slot;
static tm_counter_t hits = TM_COUNTER_INITIALIZER;
static tm_group_t group = TM_GROUP_INITIALIZER;
static tm_cond_t ready_cond = TM_COND_INITIALIZER;
static long item, logged, committed, aborted;
static int ready, seen;

static void *waker(void *)
{
    __transaction_atomic { item = 42; }
    __transaction_atomic {
        ready = 1;
        tm_cond_signal(&ready_cond);
    }
    return nullptr;
}

int main()
{
    const char *want = std::getenv("EXPECT_RUNTIME");
    bool on_tmkit = tmkit_counter_add != nullptr; // weak: absent on GCC's libitm
    if (want && std::strcmp(want, on_tmkit ? "tmkit" : "libitm") != 0) {
        std::fprintf(stderr, "use.cc: expected %s, runs on %s\n", want, on_tmkit ? "tmkit" : "libitm");
        return 3;
    }

    // atomics: overloads in C++
    static char text[] = "x";
    char *expected = nullptr;
    long before;
    tm_atomic_fetch_add(&refs, 2L);
    __transaction_atomic { before = tm_atomic_fetch_add(&refs, 1L); }
    CHECK(before == 2 && tm_atomic_load(&refs) == 3);
    CHECK(tm_atomic_compare_exchange(&slot, &expected, text) == 1);
    CHECK(tm_atomic_exchange(&slot, nullptr) == text);

    // counters
    __transaction_atomic { tm_counter_add(&hits, 3); }
    CHECK(tm_counter_read(&hits) == 3);

    // waits
    pthread_t t;
    CHECK(pthread_create(&t, nullptr, waker, nullptr) == 0);
    tm_atomic_retry {
        if (!ready)
            tm_cond_wait(&ready_cond);
        seen = ready;
    }
    tm_atomic_retry {
        if (item == 0)
            tm_retry();
        logged = item;
    }
    pthread_join(t, nullptr);
    CHECK(seen == 1 && logged == 42);

    // groups: variadic templates in C++
    tm_group_enter(&group);
    __transaction_atomic { logged++; }
    tm_group_exit(&group);
    tm_group_lock(&group);
    logged++;
    tm_group_unlock(&group);
    CHECK(logged == 44);

    // handlers: lambdas
    long v = 5;
    int cancel = 1;
    __transaction_atomic {
        tmkit::on_commit([=] { committed = v; });
        tm_no_privatization();
    }
    __transaction_atomic {
        tmkit::on_abort([=] { aborted = v + 1; });
        if (cancel)
            __transaction_cancel;
    }
    tmkit_compiler_barrier();
    CHECK(committed == 5 && aborted == 6);

    if (failures)
        return 1;
    std::printf("use.cc: ok on %s\n", on_tmkit ? "tmkit" : "libitm");
    return 0;
}

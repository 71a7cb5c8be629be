// C++ exceptions leaving transactions (GCC semantics: an exception that leaves a transaction
// commits it). Throws inside atomic transactions compile to _ITM_cxa_allocate_exception and
// _ITM_cxa_throw, and the transaction is left through _ITM_commitTransactionEH. Covered:
//  1. throw directly out of an atomic transaction: the writes before the throw are visible in
//     the handler outside, the code after the throw never ran;
//  2. throw from a transaction_safe function called in the transaction (and not thrown);
//  3. throw out of a nested transaction through the outer one: both committed;
//  4. throw out of a relaxed transaction;
//  5. 10,000 rounds of 1-4: no heap growth (mallinfo2), exact counters, not in a transaction
//     afterwards;
//  6. threads throwing out of conflicting transactions: every transaction commits exactly once
//     whether it threw or not, even when a conflict restarted it first;
//  7. scalars and pointers thrown out of a transaction arrive as thrown (under a redo log the
//     store into the exception object is buffered, and the unwinder reads the object before
//     the commit: a thrown void * arrived as the previous exception's bytes under NOrec and
//     orec_lazy until _ITM_cxa_throw flushed it), and so do the standard exceptions whose
//     transactional constructors (libstdc++) copy the object in through a barrier and then
//     store the message directly (their message was lost under a redo log).
// Handlers inside transactions (_ITM_cxa_begin_catch/_ITM_cxa_end_catch) and the
// _ITM_cxa_free_exception path are in cxx_exceptions_catch.cc: the system libitm crashes on them
// except under serialirr, while everything here passes under all its methods.
#include <malloc.h>

#include <cstring>
#include <stdexcept>

#include "harness.h"

struct Err {
    int code;
    long pad[3];
};

static long a, c, d;
static long counter;

__attribute__((transaction_safe, noinline)) static void maybe_throw(long v)
{
    d += v;
    if (v & 1)
        throw Err{(int)v, {}};
}

static void round_trip(int i)
{
    // 1. escape from the transaction: committed
    long a0 = a;
    try {
        __transaction_atomic {
            a++;
            if (a != -1)
                throw Err{i, {}};
            a += 1000;
        }
        CHECK(!"not reached");
    } catch (Err &e) {
        CHECK_EQ(e.code, i);
        CHECK_EQ(a, a0 + 1);
    }

    // 2. transaction_safe thrower; even arguments do not throw
    long d0 = d;
    try {
        __transaction_atomic {
            maybe_throw(2 * i + 1);
            d += 5000;
        }
        CHECK(!"not reached");
    } catch (Err &e) {
        CHECK_EQ(e.code, 2 * i + 1);
    }
    CHECK_EQ(d, d0 + 2 * i + 1);
    d0 = d;
    __transaction_atomic { maybe_throw(2 * i); }
    CHECK_EQ(d, d0 + 2 * i);

    // 3. propagating through a nested and the outer transaction
    long c0 = c;
    try {
        __transaction_atomic {
            c += 1;
            __transaction_atomic {
                c += 20;
                maybe_throw(1);
                c += 300;
            }
            c += 5000;
        }
    } catch (Err &e) {
        CHECK_EQ(e.code, 1);
    }
    CHECK_EQ(c, c0 + 21);

    // 7. thrown scalars and pointers, each different from the last one thrown
    static long slots[8];
    try {
        __transaction_atomic {
            slots[i & 7]++;
            throw (void *)&slots[i & 7];
        }
    } catch (void *p) {
        CHECK(p == (void *)&slots[i & 7]);
    }
    try {
        __transaction_atomic {
            long *q = &slots[(i + 3) & 7];
            throw q;
        }
    } catch (long *p) {
        CHECK(p == &slots[(i + 3) & 7]);
    }
    try {
        __transaction_atomic { throw (unsigned long)i * 0x9E3779B97F4A7C15ul; }
    } catch (unsigned long v) {
        CHECK(v == (unsigned long)i * 0x9E3779B97F4A7C15ul);
    }

    try {
        __transaction_atomic {
            slots[i & 7]++;
            throw std::runtime_error("runtime error thrown in a transaction");
        }
    } catch (std::runtime_error &e) {
        CHECK(strcmp(e.what(), "runtime error thrown in a transaction") == 0);
    }
    try {
        __transaction_atomic { throw std::out_of_range("out of range"); }
    } catch (std::logic_error &e) {
        CHECK(strcmp(e.what(), "out of range") == 0);
    }

    // 4. relaxed transaction
    a0 = a;
    try {
        __transaction_relaxed {
            a += 4;
            throw Err{9, {}};
        }
    } catch (Err &e) {
        CHECK_EQ(e.code, 9);
    }
    CHECK_EQ(a, a0 + 4);
}

static long iters_per_thread;
static void *worker(void *arg)
{
    long id = (long)(intptr_t)arg, thrown = 0;
    for (long i = 0; i < iters_per_thread; i++) {
        try {
            __transaction_atomic {
                counter++;
                if ((i + id) % 3 == 0)
                    throw Err{(int)i, {}};
                counter += 2;
            }
        } catch (Err &e) {
            CHECK_EQ(e.code, (int)i);
            thrown++;
        }
    }
    return (void *)(intptr_t)thrown;
}

int main()
{
    th_check_runtime();
    for (int i = 0; i < 100; i++) // warm-up: the unwinder's first-throw allocations
        round_trip(i);
    size_t heap0 = mallinfo2().uordblks;
    long n = th_iters(10000);
    for (int i = 0; i < n; i++)
        round_trip(i);
    size_t heap1 = mallinfo2().uordblks;
    CHECK_EQ(a, 5 * (n + 100));
    CHECK_EQ(c, 21 * (n + 100));
    CHECK((long)heap1 - (long)heap0 < 64 * 1024);
    CHECK_EQ(_ITM_inTransaction(), th_outsideTransaction);

    int nt = th_threads();
    iters_per_thread = th_iters(20000);
    pthread_t *t = (pthread_t *)calloc((size_t)nt, sizeof *t);
    CHECK(t != NULL);
    for (int i = 0; i < nt; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) == 0);
    long thrown = 0;
    for (int i = 0; i < nt; i++) {
        void *r;
        CHECK(pthread_join(t[i], &r) == 0);
        thrown += (long)(intptr_t)r;
    }
    free(t);
    long total = (long)nt * iters_per_thread;
    CHECK(thrown > 0);
    CHECK_EQ(counter, 3 * total - 2 * thrown);
    printf("cxx_exceptions: ok (heap %zu -> %zu, %ld thrown by threads)\n", heap0, heap1, thrown);
    return 0;
}

// C++ exception handlers inside transactional code, and the exception-object-constructor-throws
// path. GCC emits _ITM_cxa_begin_catch/_ITM_cxa_end_catch for a handler inside an atomic
// transaction or a transaction_safe function, and _ITM_cxa_free_exception when the constructor
// of the object being thrown throws itself (all five _ITM_cxa_* hooks appear in this binary:
// checked with objdump -d). Covered:
//  1. throw and catch inside one transaction, which then continues and commits;
//  2. nested: thrown in an inner transaction, caught in the outer one (inner's writes committed);
//  3. a transaction_safe function that catches and rethrows (`throw;`) out of the transaction;
//  4. the exception object's constructor throws inside a transaction: the half-built exception
//     is freed and the inner one propagates; the transaction commits;
//  5. 10,000 rounds of 1-4 without heap growth (mallinfo2) and with exact counters;
//  6. threads whose conflicting transactions throw and catch internally: exact counters.
// All handlers inside transactional code are catch (...): GCC 12 stops with an internal compiler
// error (expand_call_tm, trans-mem.cc:2537) on any typed handler there.
//
// The system libitm only passes this under serialirr. With any method that can roll back (serial,
// gl_wt, ml_wt) _ITM_cxa_begin_catch recurses without end (stack overflow, SIGSEGV) when it
// drops the exception from the transaction's allocation log, and in case 4 the commit of the
// transaction calls __cxa_tm_cleanup on the freed exception and jumps to a garbage address.
// TMTEST: libitm-methods=serialirr
#include <malloc.h>

#include "harness.h"

struct Err {
    int code;
};
struct Picky { // its constructor throws for negative codes
    int code;
    __attribute__((transaction_safe)) explicit Picky(int c) : code(c)
    {
        if (c < 0)
            throw Err{c};
    }
};

static long a, b, c, d;
static long counter;

__attribute__((transaction_safe, noinline)) static void maybe_throw(long v)
{
    d += v;
    if (v & 1)
        throw Err{(int)v};
}

__attribute__((transaction_safe, noinline)) static void rethrower(long v)
{
    try {
        maybe_throw(v);
    } catch (...) {
        d += 100;
        throw;
    }
}

static void round_trip(int i)
{
    // 1. caught inside, then the transaction continues and commits
    long b0 = b;
    __transaction_atomic {
        try {
            b += 2;
            throw Err{7};
            b += 1000;
        } catch (...) {
            b += 7;
        }
        b += 1;
    }
    CHECK_EQ(b, b0 + 10);

    // 2. nested: thrown in the inner transaction, caught in the outer one
    long c0 = c;
    __transaction_atomic {
        c += 1;
        try {
            __transaction_atomic {
                c += 10;
                maybe_throw(3);
                c += 1000;
            }
        } catch (...) {
            c += 300;
        }
    }
    CHECK_EQ(c, c0 + 311);

    // 3. catch and rethrow inside a transaction_safe function
    long d0 = d;
    try {
        __transaction_atomic { rethrower(2 * i + 1); }
        CHECK(!"not reached");
    } catch (Err &e) {
        CHECK_EQ(e.code, 2 * i + 1);
    }
    CHECK_EQ(d, d0 + 2 * i + 1 + 100);
    d0 = d;
    __transaction_atomic { rethrower(2 * i); }
    CHECK_EQ(d, d0 + 2 * i);

    // 4. constructing the exception object throws
    long a0 = a;
    try {
        __transaction_atomic {
            a += 2;
            throw Picky(-5 - (i & 3));
        }
    } catch (Picky &) {
        CHECK(!"Picky must not be thrown");
    } catch (Err &e) {
        CHECK_EQ(e.code, -5 - (i & 3));
    }
    CHECK_EQ(a, a0 + 2);
}

static long iters_per_thread;
static void *worker(void *arg)
{
    long id = (long)(intptr_t)arg;
    for (long i = 0; i < iters_per_thread; i++) {
        __transaction_atomic {
            counter++;
            try {
                if ((i + id) % 2 == 0)
                    maybe_throw(1);
                counter += 10;
            } catch (...) {
                counter += 100;
            }
        }
    }
    return NULL;
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
    CHECK_EQ(a, 2 * (n + 100));
    CHECK_EQ(b, 10 * (n + 100));
    CHECK_EQ(c, 311 * (n + 100));
    CHECK((long)heap1 - (long)heap0 < 64 * 1024);
    CHECK_EQ(_ITM_inTransaction(), th_outsideTransaction);

    int nt = th_threads();
    iters_per_thread = th_iters(20000);
    d = 0;
    th_run(nt, worker);
    long total = (long)nt * iters_per_thread, throws = 0;
    for (int t = 0; t < nt; t++)
        for (long i = 0; i < iters_per_thread; i++)
            throws += (i + t) % 2 == 0;
    CHECK_EQ(counter, total + 10 * (total - throws) + 100 * throws);
    CHECK_EQ(d, throws);
    printf("cxx_exceptions_catch: ok (heap %zu -> %zu)\n", heap0, heap1);
    return 0;
}

// __transaction_cancel with C++ objects on the stack and RAII.
//  1. an object constructed before the transaction and modified inside a cancelled one gets its
//     old state back, and its destructor then runs exactly once, at the end of its own scope;
//  2. objects constructed inside a cancelled transaction: everything their constructors (and
//     member functions) wrote to shared state is rolled back;
//  3. a committed transaction runs the destructors of its scope objects inside the transaction;
//  4. scope guards (depth counter ++ in the constructor, -- in the destructor), committed and
//     cancelled;
//  5. an owning handle (new in the caller, delete in its destructor): committed, the object is
//     destroyed inside the transaction; cancelled, the allocation is undone;
//  6. cancel in the middle of a loop that constructs an object per iteration;
//  7. a nested transaction with its own objects cancels: only its effects go, the outer objects
//     and writes stay and the outer commits;
//  8. __transaction_cancel [[outer]] from a transaction_may_cancel_outer function called in a
//     nested transaction, with objects alive in both;
//  9. 10,000 rounds of the cancelling cases without heap growth (mallinfo2).
// (Whether destructors of objects inside a cancelled transaction run is not checked: with GCC,
// _ITM_abortTransaction jumps back to the transaction start, and their effects are undone anyway.)
//
// Built with GCC's tmmemopt pass disabled: otherwise -O2 turns the ++/--/+= of the constructors,
// destructors and bump() into _ITM_RfW + _ITM_WaW pairs, which the system libitm does not undo in
// serial mode (outer cancels under serialirr, nested cancels under every method), and this test
// could not be checked against it. Cancels of RfW/WaW code are covered by mt_cancel_rmw.c.
// TMTEST: cflags=-fdisable-tree-tmmemopt
// TMTEST: valgrind=yes
// TMTEST: valgrind-div=4
#include <malloc.h>

#include "harness.h"

#define TS __attribute__((transaction_safe))

static long registry; // objects alive, maintained transactionally by constructor/destructor
static long dtor_calls; // counted non-transactionally
TH_PURE static void note_dtor() { __atomic_fetch_add(&dtor_calls, 1, __ATOMIC_RELAXED); }
int never; // external and never written: keeps cancels conditional

struct Tracked {
    long id;
    long val[4];
    TS explicit Tracked(long i) : id(i)
    {
        registry++;
        for (int k = 0; k < 4; k++)
            val[k] = i * 10 + k;
    }
    TS ~Tracked()
    {
        registry--;
        note_dtor();
    }
    TS void bump(long d)
    {
        for (int k = 0; k < 4; k++)
            val[k] += d;
    }
    bool pristine() const
    {
        for (int k = 0; k < 4; k++)
            if (val[k] != id * 10 + k)
                return false;
        return true;
    }
};

struct Guard {
    long *depth;
    TS explicit Guard(long *d) : depth(d) { ++*depth; }
    TS ~Guard() { --*depth; }
};

template <class T> struct Owner {
    T *p;
    TS explicit Owner(T *q) : p(q) {}
    TS ~Owner() { delete p; }
    Owner(const Owner &) = delete;
    Owner &operator=(const Owner &) = delete;
};

static long depth, seen_a, seen_b, total;

__attribute__((transaction_may_cancel_outer)) static void give_up(Tracked *t)
{
    t->bump(1000);
    if (!never)
        __transaction_cancel [[outer]];
}

static void cancelling_cases(long i)
{
    // 2.
    long r0 = registry, t0 = total;
    __transaction_atomic {
        Tracked a(2), b(3);
        a.bump(i);
        total = a.val[0] + b.val[0];
        if (!never)
            __transaction_cancel;
    }
    CHECK_EQ(registry, r0);
    CHECK_EQ(total, t0);
    // 4. (cancelled)
    long sa = seen_a, sb = seen_b;
    __transaction_atomic {
        Guard g1(&depth);
        {
            Guard g2(&depth);
            seen_a = depth;
        }
        seen_b = depth;
        if (!never)
            __transaction_cancel;
    }
    CHECK_EQ(depth, 0);
    CHECK_EQ(seen_a, sa);
    CHECK_EQ(seen_b, sb);
    // 5. (cancelled)
    __transaction_atomic {
        Owner<Tracked> o(new Tracked(8));
        o.p->bump(1);
        if (!never)
            __transaction_cancel;
    }
    CHECK_EQ(registry, r0);
    // 6.
    __transaction_atomic {
        for (int k = 0; k < 10; k++) {
            Tracked t(k);
            total += t.val[0];
            if (k == 3 && !never)
                __transaction_cancel;
        }
    }
    CHECK_EQ(total, t0);
    CHECK_EQ(registry, r0);
}

int main()
{
    th_check_runtime();
    {   // 1.
        Tracked t(1);
        __transaction_atomic {
            t.bump(5);
            t.id = 99;
            if (!never)
                __transaction_cancel;
        }
        CHECK_EQ(t.id, 1);
        CHECK(t.pristine());
        CHECK_EQ(registry, 1);
        dtor_calls = 0;
    }
    CHECK_EQ(dtor_calls, 1);
    CHECK_EQ(registry, 0);

    cancelling_cases(1);

    // 3.
    long peak = 0, d0 = dtor_calls;
    __transaction_atomic {
        Tracked a(4);
        peak = registry;
    }
    CHECK_EQ(peak, 1);
    CHECK_EQ(registry, 0);
    CHECK_EQ(dtor_calls, d0 + 1);
    // 4. (committed)
    __transaction_atomic {
        Guard g1(&depth);
        {
            Guard g2(&depth);
            seen_a = depth;
        }
        seen_b = depth;
    }
    CHECK_EQ(depth, 0);
    CHECK_EQ(seen_a, 2);
    CHECK_EQ(seen_b, 1);
    // 5. (committed)
    d0 = dtor_calls;
    __transaction_atomic {
        Owner<Tracked> o(new Tracked(7));
        total = o.p->val[2];
    }
    CHECK_EQ(total, 72);
    CHECK_EQ(registry, 0);
    CHECK_EQ(dtor_calls, d0 + 1);

    // 7.
    long kept[4] = {0, 0, 0, 0};
    __transaction_atomic {
        Tracked outer(20);
        Guard g(&depth);
        __transaction_atomic {
            Tracked inner(21);
            Guard g2(&depth);
            outer.bump(500);
            total = 12345;
            if (!never)
                __transaction_cancel;
        }
        for (int k = 0; k < 4; k++)
            kept[k] = outer.val[k];
        seen_a = depth;
        seen_b = registry;
    }
    for (int k = 0; k < 4; k++)
        CHECK_EQ(kept[k], 200 + k);
    CHECK_EQ(seen_a, 1);
    CHECK_EQ(seen_b, 1);
    CHECK_EQ(total, 72);
    CHECK_EQ(depth, 0);
    CHECK_EQ(registry, 0);

    // 8.
    Tracked survivor(30);
    __transaction_atomic [[outer]] {
        Tracked a(31);
        Guard g(&depth);
        survivor.bump(7);
        __transaction_atomic {
            Tracked b(32);
            give_up(&survivor);
        }
        total = 999;
    }
    CHECK(survivor.pristine());
    CHECK_EQ(total, 72);
    CHECK_EQ(depth, 0);
    CHECK_EQ(registry, 1);

    // 9.
    for (long i = 0; i < 100; i++)
        cancelling_cases(i);
    size_t heap0 = mallinfo2().uordblks;
    long n = th_iters(10000);
    for (long i = 0; i < n; i++)
        cancelling_cases(i);
    size_t heap1 = mallinfo2().uordblks;
    CHECK((long)heap1 - (long)heap0 < 64 * 1024);
    CHECK_EQ(registry, 1);
    printf("cxx_cancel_raii: ok (heap %zu -> %zu)\n", heap0, heap1);
    return 0;
}

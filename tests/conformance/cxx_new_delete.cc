// new/delete inside transactions, counted through replaced global operators.
//
// GCC turns new/delete expressions in a transaction into calls to the runtime's transactional
// clones (_ZGTtnwm, _ZGTtnam, _ZGTtdlPvm for sized delete, _ZGTtdaPv, ...), which call the real
// (here: replaced, counting) operators. Checked:
//  - a committed new stays allocated; a cancelled one is released again (net live count 0);
//  - a delete in a transaction happens exactly once, only at commit (not yet inside the
//    transaction, which could still cancel); a delete in a cancelled transaction never happens
//    and the object stays intact;
//  - the sized delete clone reaches operator delete(void*, size_t) with the right size;
//  - new[]/delete[] (trivially destructible element type), new+delete in one transaction;
//  - nothrow new/delete through their clones, called directly (GCC 12 does not treat the nothrow
//    operators as transaction_safe, so a nothrow new-expression cannot appear in an atomic
//    transaction);
//  - threads pushing/popping heap nodes on a shared stack while cancelling allocations and
//    deletes of their own (th_threads() x 3,000 transactions) leave no live block behind.
// Not covered: delete[] of an array with a non-trivial destructor: GCC emits _ZGTtdaPvm, which
// the system libitm does not export, so such a program does not link.
#include <new>

#include "harness.h"

// GCC 12 reports every delete of an object from new as "mismatched" once the operators are the
// transaction_safe ones: a false positive.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

extern "C" {
void *_ZGTtnwmRKSt9nothrow_t(size_t, const std::nothrow_t &) TH_PURE;
void _ZGTtdlPvRKSt9nothrow_t(void *, const std::nothrow_t &) TH_PURE;
}

static long n_new, n_new_arr, n_new_nt, n_del, n_del_sized, n_del_arr, n_del_nt, live;
static size_t last_sized;

static void add(long *c, long d) { __atomic_fetch_add(c, d, __ATOMIC_RELAXED); }
static void *alloc(size_t n, long *c) { add(c, 1), add(&live, 1); return malloc(n ? n : 1); }
static void release(void *p, long *c) { if (p) add(c, 1), add(&live, -1), free(p); }

// The counting replacements of the global operators are defined under their mangled names as
// plain functions. Defined as `void *operator new(size_t)` they would be implicitly
// transaction_safe, and GCC would emit our own _ZGTtnwm/_ZGTtdlPvm/... clones, which would
// interpose the runtime's and bypass what this test is about.
#define REPLACE(ret, name, sym, params, body)                                                     \
    extern "C" ret name params __asm__(sym);                                                     \
    extern "C" ret name params body
REPLACE(void *, cnt_new, "_Znwm", (size_t n), { return alloc(n, &n_new); })
REPLACE(void *, cnt_new_arr, "_Znam", (size_t n), { return alloc(n, &n_new_arr); })
REPLACE(void *, cnt_new_nt, "_ZnwmRKSt9nothrow_t", (size_t n, const std::nothrow_t &),
        { return alloc(n, &n_new_nt); })
REPLACE(void *, cnt_new_arr_nt, "_ZnamRKSt9nothrow_t", (size_t n, const std::nothrow_t &),
        { return alloc(n, &n_new_nt); })
REPLACE(void, cnt_del, "_ZdlPv", (void *p), { release(p, &n_del); })
REPLACE(void, cnt_del_sized, "_ZdlPvm", (void *p, size_t n), {
    if (p)
        __atomic_store_n(&last_sized, n, __ATOMIC_RELAXED);
    release(p, &n_del_sized);
})
REPLACE(void, cnt_del_arr, "_ZdaPv", (void *p), { release(p, &n_del_arr); })
REPLACE(void, cnt_del_arr_sized, "_ZdaPvm", (void *p, size_t), { release(p, &n_del_arr); })
REPLACE(void, cnt_del_nt, "_ZdlPvRKSt9nothrow_t", (void *p, const std::nothrow_t &),
        { release(p, &n_del_nt); })
REPLACE(void, cnt_del_arr_nt, "_ZdaPvRKSt9nothrow_t", (void *p, const std::nothrow_t &),
        { release(p, &n_del_nt); })

static long all_dels() { return n_del + n_del_sized + n_del_arr + n_del_nt; }
static long dels_seen_inside; // written by a pure hook from inside a transaction
TH_PURE static void note_dels() { dels_seen_inside = all_dels(); }

struct P { long a, b, pad[3]; };

static P *gp;
static long gx;
int never = 0; // external and never written: keeps the cancels conditional

static void single_thread()
{
    long l0 = live, nn = n_new, dd = all_dels();
    __transaction_atomic { gp = new P{1, 2, {}}; }
    CHECK_EQ(n_new, nn + 1);
    CHECK_EQ(live, l0 + 1);
    CHECK(gp->a == 1 && gp->b == 2);
    P *keep = gp;

    __transaction_atomic { // cancelled new: released again
        gp = new P{3, 4, {}};
        gp->a = 5;
        if (!never)
            __transaction_cancel;
    }
    CHECK(gp == keep);
    CHECK_EQ(n_new, nn + 2);
    CHECK_EQ(all_dels(), dd + 1);
    CHECK_EQ(live, l0 + 1);

    // committed sized delete: deferred to commit, then exactly once, with the right size
    long ds = n_del_sized;
    dd = all_dels();
    __transaction_atomic {
        delete gp;
        gp = nullptr;
        gx++;
        note_dels();
        if (never)
            __transaction_cancel;
    }
    CHECK_EQ(dels_seen_inside, dd);
    CHECK_EQ(all_dels(), dd + 1);
    CHECK_EQ(n_del_sized, ds + 1);
    CHECK_EQ(last_sized, sizeof(P));
    CHECK_EQ(live, l0);

    // delete in a cancelled transaction does not happen
    gp = new P{7, 8, {}};
    dd = all_dels();
    __transaction_atomic {
        delete gp;
        gp = nullptr;
        if (!never)
            __transaction_cancel;
    }
    CHECK(gp != nullptr && gp->a == 7 && gp->b == 8);
    CHECK_EQ(all_dels(), dd);
    delete gp;
    CHECK_EQ(live, l0);

    // new[] / delete[]
    long na = n_new_arr, da = n_del_arr;
    long *arr = nullptr;
    __transaction_atomic {
        arr = new long[16];
        for (int i = 0; i < 16; i++)
            arr[i] = i * 3;
    }
    CHECK_EQ(n_new_arr, na + 1);
    CHECK_EQ(arr[15], 45);
    __transaction_atomic {
        long *tmp = new long[8];
        tmp[0] = arr[1];
        delete[] arr;
        arr = tmp;
        if (!never)
            __transaction_cancel;
    }
    CHECK_EQ(n_new_arr, na + 2);
    CHECK_EQ(n_del_arr, da + 1); // the cancelled new[] was released, arr was not
    CHECK_EQ(arr[15], 45);
    __transaction_atomic { delete[] arr; }
    CHECK_EQ(n_del_arr, da + 2);
    CHECK_EQ(live, l0);

    // new and delete of the same object in one committed transaction
    nn = n_new;
    dd = all_dels();
    __transaction_atomic {
        P *t = new P{9, 9, {}};
        gx += t->a;
        delete t;
    }
    CHECK_EQ(n_new, nn + 1);
    CHECK_EQ(all_dels(), dd + 1);
    CHECK_EQ(live, l0);

    // nothrow clones, called directly
    long nt = n_new_nt;
    void *q = nullptr;
    __transaction_atomic {
        q = _ZGTtnwmRKSt9nothrow_t(sizeof(P), std::nothrow);
        gx++;
    }
    CHECK(q != nullptr);
    CHECK_EQ(n_new_nt, nt + 1);
    CHECK_EQ(live, l0 + 1);
    void *q2 = nullptr;
    __transaction_atomic { // cancelled nothrow new: released again
        q2 = _ZGTtnwmRKSt9nothrow_t(sizeof(P), std::nothrow);
        if (!never)
            __transaction_cancel;
    }
    CHECK(q2 == nullptr);
    CHECK_EQ(n_new_nt, nt + 2);
    CHECK_EQ(live, l0 + 1);
    dd = all_dels();
    __transaction_atomic { // cancelled nothrow delete: q survives
        _ZGTtdlPvRKSt9nothrow_t(q, std::nothrow);
        gx = 1;
        if (!never)
            __transaction_cancel;
    }
    CHECK_EQ(all_dels(), dd);
    __transaction_atomic {
        _ZGTtdlPvRKSt9nothrow_t(q, std::nothrow);
        gx++;
    }
    CHECK_EQ(all_dels(), dd + 1);
    CHECK_EQ(live, l0);

}

struct Node { Node *next; long v; };
static Node *stack_top;
static long pushed, popped;
static Node *slot[64];
static Node sentinel;

// Committed pushes and pops race on one stack; cancelled allocations and cancelled deletes of a
// thread-private node run alongside. The cancelled transactions make only blind stores: a
// read-then-write of the same location would be compiled to RfW/WaW at -O2, which the system
// libitm does not undo in serial mode (see mt_cancel_rmw.c).
static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg % 64;
    uint64_t rng = 77 + (uint64_t)(intptr_t)arg;
    Node *mine = new Node{nullptr, 4242};
    for (long i = 0; i < th_iters(3000); i++) {
        uint64_t r = th_rand(&rng) % 4;
        if (r == 0) {
            __transaction_atomic {
                stack_top = new Node{stack_top, (long)i};
                pushed++;
            }
        } else if (r == 1) {
            __transaction_atomic {
                Node *n = stack_top;
                if (n) {
                    stack_top = n->next;
                    popped++;
                    delete n;
                }
            }
        } else if (r == 2) {
            __transaction_atomic {
                slot[id] = new Node{nullptr, (long)i};
                if (!never)
                    __transaction_cancel;
            }
            CHECK(slot[id] == nullptr);
        } else {
            __transaction_atomic {
                delete mine;
                slot[id] = &sentinel;
                if (!never)
                    __transaction_cancel;
            }
            CHECK(slot[id] == nullptr);
            CHECK_EQ(mine->v, 4242);
        }
    }
    delete mine;
    return nullptr;
}

int main()
{
    th_check_runtime();
    single_thread();
    long l0 = live;
    th_run(th_threads(), worker);
    long remaining = 0;
    while (stack_top) {
        Node *n = stack_top;
        stack_top = n->next;
        delete n;
        remaining++;
    }
    CHECK_EQ(pushed - popped, remaining);
    CHECK_EQ(live, l0);
    printf("cxx_new_delete: ok (pushed %ld, popped %ld)\n", pushed, popped);
    return 0;
}

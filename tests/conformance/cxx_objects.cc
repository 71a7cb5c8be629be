// C++ objects in transactions (no std::atomic anywhere).
//  1. constructors and destructors of stack objects run inside transactions (their side effects
//     on globals are transactional too); copy/move constructors and assignment; a cancelled
//     transaction undoes what a constructor wrote to globals;
//  2. virtual transaction_safe member functions called through base pointers inside a
//     transaction (GCC resolves the clone through _ITM_getTMCloneSafe and the registered clone
//     table);
//  3. a sorted linked-list class whose methods each run a transaction (nested when called from
//     an enclosing one): threads insert and erase their own keys and run audits that walk the list
//     inside a transaction and check it against the size and sum fields the methods maintain.
//     At the end the list holds exactly the keys each thread says it left there.
#include <utility>

#include "harness.h"

#define TS __attribute__((transaction_safe))
// The list methods are kept out of line: GCC 12 -O2 miscompiles a function that both contains a
// __transaction_atomic and has inlined transaction_safe functions with transactions of their own
// (it puts _ITM_R* barriers on plain loads outside any transaction, and libitm crashes there).
#define NOINLINE __attribute__((noinline))

static long live_widgets, widget_ctor_calls, widget_total;

struct Widget {
    long v;
    TS explicit Widget(long x) : v(x)
    {
        live_widgets++;
        widget_ctor_calls++;
    }
    TS Widget(const Widget &o) : v(o.v + 1000)
    {
        live_widgets++;
        widget_ctor_calls++;
    }
    TS Widget(Widget &&o) noexcept : v(o.v)
    {
        o.v = -1;
        live_widgets++;
        widget_ctor_calls++;
    }
    TS Widget &operator=(const Widget &o)
    {
        v = o.v * 2;
        return *this;
    }
    TS ~Widget()
    {
        widget_total += v;
        live_widgets--;
    }
};

struct Shape {
    TS virtual long area() const = 0;
    TS virtual ~Shape() {}
};
struct Rect : Shape {
    long w, h;
    Rect(long a, long b) : w(a), h(b) {}
    TS long area() const override { return w * h; }
};
struct Square : Rect {
    explicit Square(long s) : Rect(s, s) {}
    TS long area() const override { return w * w + 1; }
};

int never; // external and never written: keeps cancels conditional

static void objects_single_thread()
{
    long total = 0;
    __transaction_atomic {
        Widget w1(5);
        Widget w2(w1);            // copy: 1005
        Widget w3(std::move(w1)); // move: 5, w1 becomes -1
        w2 = w3;                  // assign: 10
        total = w1.v + w2.v + w3.v;
    }
    CHECK_EQ(total, -1 + 10 + 5);
    CHECK_EQ(live_widgets, 0);
    CHECK_EQ(widget_ctor_calls, 3);
    CHECK_EQ(widget_total, -1 + 10 + 5);

    __transaction_atomic { // the constructor's and destructor's writes are cancelled too
        Widget w(100);
        widget_total = 777;
        if (!never)
            __transaction_cancel;
    }
    CHECK_EQ(live_widgets, 0);
    CHECK_EQ(widget_ctor_calls, 3);
    CHECK_EQ(widget_total, 14);

    Rect r(3, 4);
    Square s(5);
    const Shape *shapes[3] = {&r, &s, &r};
    long sum = 0;
    __transaction_atomic {
        for (int i = 0; i < 3; i++)
            sum += shapes[i]->area();
    }
    CHECK_EQ(sum, 12 + 26 + 12);
}

class TxList {
    struct Node {
        long key;
        Node *next;
    };
    Node *head_ = nullptr;
    long size_ = 0, sum_ = 0;

  public:
    NOINLINE TS bool insert(long key)
    {
        bool done = false;
        __transaction_atomic {
            Node **pp = &head_;
            while (*pp && (*pp)->key < key)
                pp = &(*pp)->next;
            if (!*pp || (*pp)->key != key) {
                *pp = new Node{key, *pp};
                size_++;
                sum_ += key;
                done = true;
            }
        }
        return done;
    }
    NOINLINE TS bool erase(long key)
    {
        bool done = false;
        __transaction_atomic {
            Node **pp = &head_;
            while (*pp && (*pp)->key < key)
                pp = &(*pp)->next;
            if (*pp && (*pp)->key == key) {
                Node *dead = *pp;
                *pp = dead->next;
                delete dead;
                size_--;
                sum_ -= key;
                done = true;
            }
        }
        return done;
    }
    // walks the list in one transaction; returns false if it disagrees with size_/sum_ or is
    // not sorted
    NOINLINE TS bool audit(long *count_out) const
    {
        bool ok = true;
        __transaction_atomic {
            long n = 0, s = 0, prev = -1;
            for (const Node *p = head_; p; p = p->next) {
                if (p->key <= prev)
                    ok = false;
                prev = p->key;
                n++;
                s += p->key;
            }
            if (n != size_ || s != sum_)
                ok = false;
            *count_out = n;
        }
        return ok;
    }
    long size() const { return size_; }
    long sum() const { return sum_; }
    ~TxList()
    {
        while (head_) {
            Node *n = head_;
            head_ = n->next;
            delete n;
        }
    }
};

static TxList *list;
static long per_thread;
static long left_sum[64], left_count[64];
static int nthreads;

static void *list_worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    uint64_t rng = 4242 + (uint64_t)id;
    long sum = 0, count = 0, bad_audits = 0;
    for (long i = 0; i < per_thread; i++) {
        long key = i * nthreads + id; // keys are private to a thread
        CHECK(list->insert(key));
        sum += key;
        count++;
        uint64_t r = th_rand(&rng);
        if (r % 3 == 0) {
            long victim = (long)(r >> 8) % (i + 1) * nthreads + id;
            if (list->erase(victim)) {
                sum -= victim;
                count--;
            }
        }
        if (r % 16 == 1) {
            long n;
            bad_audits += !list->audit(&n);
        }
        if (r % 32 == 2) { // two operations in one enclosing transaction: all or nothing
            long k2 = -(i * nthreads + id) - 1000000; // negative keys never collide with others
            __transaction_atomic {
                list->insert(k2);
                list->erase(k2);
            }
        }
    }
    CHECK_EQ(bad_audits, 0);
    left_sum[id] = sum;
    left_count[id] = count;
    return nullptr;
}

int main()
{
    th_check_runtime();
    objects_single_thread();

    nthreads = th_threads();
    CHECK(nthreads <= 64);
    per_thread = th_iters(4800) / nthreads; // the list length stays the same for any thread count
    if (per_thread < 200)
        per_thread = 200;
    list = new TxList;
    th_run(nthreads, list_worker);
    long n;
    CHECK(list->audit(&n));
    long sum = 0, count = 0;
    for (int i = 0; i < nthreads; i++) {
        sum += left_sum[i];
        count += left_count[i];
    }
    CHECK_EQ(list->size(), count);
    CHECK_EQ(list->sum(), sum);
    CHECK_EQ(n, count);
    delete list;
    printf("cxx_objects: ok (%ld keys left)\n", count);
    return 0;
}

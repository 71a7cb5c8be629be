// c_redo_pure_fnptr.c in C++: an ordered index whose comparator, a captureless lambda, sits in
// a member of transaction_pure function-pointer type. Its transaction_safe member functions
// (clones) call it straight through the register, no _ITM_getTMClone*, on an entry whose name
// the same transaction has just written: at insertion, and when an entry is renamed (unlinked,
// renamed, linked again in order). Write-through runtimes pass; under a redo log the comparator
// reads the names from before the transaction and the index ends unsorted, so the runtime
// refuses norec and orec_lazy for this program at start-up (core/redo_check.c; issue 48).
// TMTEST: refused=norec,orec_lazy:an indirect call through a transaction_pure function pointer
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "harness.h"

#define TS __attribute__((transaction_safe))
#define NOINLINE __attribute__((noinline))

struct Entry {
    char name[16];
    Entry *next;
};

typedef long Compare(const Entry *, const Entry *) __attribute__((transaction_pure));

class Index {
  public:
    explicit Index(Compare *c) : compare(c) {}

    TS NOINLINE void insert(Entry *e, long key)
    {
        name(e, key);
        link(e);
        size++;
    }

    TS NOINLINE void rename(Entry *e, long key)
    {
        Entry **pp = &head;
        while (*pp != e)
            pp = &(*pp)->next;
        *pp = e->next;
        name(e, key);
        link(e);
    }

    Entry *first() const { return head; }
    long count() const { return size; }

  private:
    TS static void name(Entry *e, long key)
    {
        for (int i = 7; i >= 0; i--, key /= 10)
            e->name[i] = static_cast<char>('0' + key % 10);
        e->name[8] = 0;
    }

    TS void link(Entry *e)
    {
        Entry **pp = &head;
        while (*pp && compare(*pp, e) < 0)
            pp = &(*pp)->next;
        e->next = *pp;
        *pp = e;
    }

    Entry *head = nullptr;
    Compare *compare;
    long size = 0;
};

static Entry pool[64];
static Index index_by_name([](const Entry *a, const Entry *b) -> long {
    return std::strcmp(a->name, b->name);
});

static void check_sorted(long want)
{
    long n = 0;
    for (const Entry *e = index_by_name.first(); e; e = e->next, n++)
        if (e->next && std::strcmp(e->name, e->next->name) >= 0) {
            std::fprintf(stderr, "out of order: '%s' before '%s'\n", e->name, e->next->name);
            std::exit(1);
        }
    CHECK_EQ(n, want);
    CHECK_EQ(index_by_name.count(), want);
}

int main()
{
    th_check_runtime();
    for (long i = 0; i < 64; i++) {
        long key = (i * 37) % 64 * 10; // every key once, out of order
        __transaction_atomic { index_by_name.insert(&pool[i], key); }
    }
    check_sorted(64);
    for (long i = 0; i < 64; i += 3) { // new names between and beyond the old ones
        long key = (i * 53) % 64 * 10 + 5;
        __transaction_atomic { index_by_name.rename(&pool[i], key); }
    }
    check_sorted(64);
    std::puts("cxx_redo_pure_fnptr: ok");
    return 0;
}

/* A call through a transaction_pure function pointer, reading what the transaction wrote: the
 * shape that crashed a published -fgnu-tm program under NOrec and orec_lazy (issue 48). A sorted
 * list keeps its comparison function in a field whose type is transaction_pure; inside the
 * transaction_safe insert (a clone) GCC calls it straight through the register, with no
 * _ITM_getTMClone*, and the comparator strcmp()s the name the transaction has just written
 * into the new record. Under a write-through runtime (libitm's methods, tmkit's default) the
 * plain code sees the new name; under a redo log it sees the record as it was before the
 * transaction (an empty name), every record goes to the front and the list ends unsorted.
 * So the runtime refuses norec and orec_lazy for this program at start-up (core/redo_check.c:
 * exit status 2, the hazard named), and `tmkit check` reports the call with its line
 * (docs/algorithms.md, "Redo logs and programs written for libitm"). With
 * TMKIT_REDO_CHECK=off both run it, and fail. */
// TMTEST: refused=norec,orec_lazy:an indirect call through a transaction_pure function pointer
#include "harness.h"

#define NREC 64

struct rec {
    char name[16];
    struct rec *next;
};

struct list {
    struct rec *head;
    __attribute__((transaction_pure)) long (*compare)(const void *, const void *);
    long n;
};

static long by_name(const void *a, const void *b)
{
    return strcmp(((const struct rec *)a)->name, ((const struct rec *)b)->name);
}

static struct rec pool[NREC];
static struct list names = {NULL, by_name, 0};

/* Names the record with key's 8 digits (so that names sort as keys do) and links it in order. */
__attribute__((transaction_safe, noinline)) static void insert_named(struct list *l, struct rec *r,
                                                                     long key)
{
    for (int i = 7; i >= 0; i--, key /= 10)
        r->name[i] = (char)('0' + key % 10);
    r->name[8] = 0;
    struct rec **pp = &l->head;
    while (*pp && l->compare(*pp, r) < 0)
        pp = &(*pp)->next;
    r->next = *pp;
    *pp = r;
    l->n++;
}

int main(void)
{
    th_check_runtime();
    for (long i = 0; i < NREC; i++) {
        long key = (i * 37) % NREC; /* every key once, out of order */
        __transaction_atomic { insert_named(&names, &pool[i], key); }
    }
    long n = 0;
    for (const struct rec *r = names.head; r; r = r->next, n++)
        if (r->next && strcmp(r->name, r->next->name) >= 0) {
            fprintf(stderr, "out of order: '%s' before '%s'\n", r->name, r->next->name);
            return 1;
        }
    CHECK_EQ(n, NREC);
    CHECK_EQ(names.n, NREC);
    puts("c_redo_pure_fnptr: ok");
    return 0;
}

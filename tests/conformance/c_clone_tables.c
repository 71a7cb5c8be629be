/* TM clone tables. GCC gives transaction_safe and transaction_callable functions an
 * instrumented clone (_ZGTt<len><name>) and registers the executable's table of (function,
 * clone) pairs at start-up. Checks: _ITM_getTMCloneSafe and _ITM_getTMCloneOrIrrevocable return
 * exactly that clone; an indirect call through a transaction_safe function pointer in an atomic
 * transaction runs the clone (its writes are undone by a cancel); an indirect call of a
 * transaction_callable function in a relaxed transaction does not make it irrevocable; a table
 * registered with _ITM_registerTMCloneTable redirects calls of a function that has no clone of
 * its own, and after _ITM_deregisterTMCloneTable the function has no clone again, so
 * _ITM_getTMCloneOrIrrevocable returns it unchanged and makes the transaction irrevocable.
 * The functions have external linkage so that their clones keep the plain mangled names. */
// TMTEST: valgrind=yes
#include "harness.h"

#define NOINLINE __attribute__((noinline))

int cl_var, cl_safe_var, cl_plain_var;
static volatile int runtime_one = 1;

__attribute__((transaction_safe)) NOINLINE void cl_safe_add(int v) { cl_var = 3 * v; }
__attribute__((transaction_callable)) NOINLINE void cl_callable_add(int v) { cl_var += 2 * v; }
__attribute__((transaction_safe)) NOINLINE void cl_safe_writer(int v) { cl_safe_var = v; }
NOINLINE void cl_plain_writer(int v) { cl_plain_var = v; }

/* The clones, by their mangled names. */
extern void cl_safe_add_clone(int) __asm__("_ZGTt11cl_safe_add");
extern void cl_callable_add_clone(int) __asm__("_ZGTt15cl_callable_add");
extern void cl_safe_writer_clone(int) __asm__("_ZGTt14cl_safe_writer");

typedef void (*safe_fn)(int) __attribute__((transaction_safe));
typedef void (*plain_fn)(int);
safe_fn cl_safe_ptr = cl_safe_add;
plain_fn cl_callable_ptr = cl_callable_add;
plain_fn cl_plain_ptr = cl_plain_writer;

static void *got_safe, *got_irr1, *got_irr2, *got_plain;
static int how_before, how_after;
TH_PURE static void lookups(void)
{
    got_safe = _ITM_getTMCloneSafe((void *)cl_safe_add);
    got_irr1 = _ITM_getTMCloneOrIrrevocable((void *)cl_callable_add);
    got_irr2 = _ITM_getTMCloneSafe((void *)cl_safe_writer);
}
TH_PURE static void how(int *where) { *where = _ITM_inTransaction(); }
TH_PURE static void lookup_plain(void)
{
    got_plain = _ITM_getTMCloneOrIrrevocable((void *)cl_plain_writer);
}

/* A table of our own: cl_plain_writer -> the clone of cl_safe_writer. */
static void *my_table[2];

int main(void)
{
    th_check_runtime();
    int one = runtime_one;

    /* Direct lookups, inside a transaction. */
    __transaction_atomic {
        cl_var = 1;
        lookups();
    }
    TH_FORGET_MEMORY();
    CHECK(got_safe == (void *)cl_safe_add_clone);
    CHECK(got_irr1 == (void *)cl_callable_add_clone);
    CHECK(got_irr2 == (void *)cl_safe_writer_clone);
    CHECK(got_safe != (void *)cl_safe_add && got_irr1 != (void *)cl_callable_add);

    /* Indirect call through a transaction_safe pointer: the clone runs, so a cancel undoes it. */
    cl_var = 10;
    __transaction_atomic {
        cl_safe_ptr(5);
        if (one)
            __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(cl_var, 10);
    __transaction_atomic {
        cl_safe_ptr(5);
        if (cl_var == 0 && one)
            __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(cl_var, 15);

    /* Indirect call of a callable function in a relaxed transaction: if the transaction was
     * not irrevocable before the call, it is not afterwards (the clone was found). */
    for (int i = 0; i < 10; i++) {
        __transaction_relaxed {
            cl_var = cl_var + 1;
            how(&how_before);
            cl_callable_ptr(3);
            how(&how_after);
        }
        TH_FORGET_MEMORY();
        CHECK(how_before == 1 || how_before == 2);
        CHECK(how_before == 2 || how_after == 1);
    }
    CHECK_EQ(cl_var, 15 + 10 * 7);

    /* Our own table redirects cl_plain_writer to cl_safe_writer's clone. */
    my_table[0] = (void *)cl_plain_writer;
    my_table[1] = (void *)cl_safe_writer_clone;
    _ITM_registerTMCloneTable(my_table, 1);
    safe_fn redirected = (safe_fn)cl_plain_ptr;
    __transaction_atomic {
        cl_var = 0;
        redirected(77);
        if (cl_var == 1 && one) /* a cancel path: the instrumented code runs */
            __transaction_cancel;
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(cl_safe_var, 77);
    CHECK_EQ(cl_plain_var, 0);
    _ITM_deregisterTMCloneTable(my_table);

    /* Without the table, cl_plain_writer has no clone: the lookup returns it unchanged and the
     * transaction becomes irrevocable; the original function then runs. */
    __transaction_relaxed {
        cl_var = 2;
        lookup_plain();
        how(&how_after);
        cl_plain_ptr(88);
    }
    TH_FORGET_MEMORY();
    CHECK(got_plain == (void *)cl_plain_writer);
    CHECK_EQ(how_after, 2);
    CHECK_EQ(cl_plain_var, 88);
    CHECK_EQ(cl_safe_var, 77);
    CHECK_EQ(cl_var, 2);

    /* The same through the indirect call alone. */
    __transaction_relaxed {
        cl_var = 3;
        cl_plain_ptr(99);
        how(&how_after);
    }
    TH_FORGET_MEMORY();
    CHECK_EQ(how_after, 2);
    CHECK_EQ(cl_plain_var, 99);
    CHECK_EQ(cl_var, 3);
    return 0;
}

/* tmkit.h — extras for programs built with gcc -fgnu-tm and run on tmkit (or any libitm).
 *
 * Blocking waits (tm_retry, tm_cond_t): tmkit/wait.h. Deferred counters (tm_counter_t):
 * tmkit/counter.h. Lock groups for sections that must stay irrevocable (tm_group_t, LockSTM):
 * tmkit/group.h. A transaction's promise not to privatize, so that its commit does not wait for
 * the others (tm_no_privatization): tmkit/privatize.h. All are included here, and fall back to
 * slower portable forms on GCC's libitm. A transaction-safe libc (strlen, strcmp, snprintf,
 * strtol, qsort ... inside transactions without going irrevocable): tmkit/libc.h, included here
 * for C. Below: commit and abort handlers.
 *
 * Commit and abort handlers written where they are needed, capturing the values they use:
 *
 *     __transaction_atomic {
 *         entry *e = cache_remove(key);
 *         tm_on_commit(e, pool) {          // runs once, after the transaction commits
 *             pool_release(pool, e);
 *         }
 *     }
 *
 * The names in parentheses are captured BY VALUE when the handler is registered (pointers,
 * integers, structs; not arrays), so the handler is safe to run after the registering function
 * has returned (a handler registered in a callee runs at the outermost commit). The body may use
 * only the captured names and globals: a reference to any other local of the enclosing function
 * would need a stack trampoline, which GCC reports with -Wtrampolines (tmkit.h turns that into an
 * error inside handler bodies). With no captures write `tm_on_commit() { ... }`. Under -Wshadow
 * GCC reports each captured name as shadowing the local it copies: that is the mechanism (the
 * body sees the copy), and the macro cannot silence it (the pragma that restored the warning
 * would have to sit between the body's parameters and its braces, where GCC takes none), so a
 * program built with -Wshadow -Werror turns it off around its handlers. In C this needs
 * -Og or higher (at -O0 GCC always makes trampolines for nested functions; the header then stops
 * with a clear error). C++ programs use tmkit::on_commit / tmkit::on_abort with a lambda.
 *
 *   tm_on_commit(captures...) { body }   body runs after the outermost transaction commits,
 *                                        in registration order; never if it aborts.
 *   tm_on_abort(captures...)  { body }   body runs each time the attempt that registered it is
 *                                        rolled back (cancel or conflict restart), in reverse
 *                                        registration order; never if it commits.
 * Outside any transaction, tm_on_commit runs its body immediately and tm_on_abort never runs.
 *
 * Compiler caveat: GCC treats a cancelled transaction as having changed no memory, so code right
 * after a __transaction_cancel may reuse values it loaded before the transaction. Read memory an
 * abort handler wrote only after tmkit_compiler_barrier() (or a call GCC cannot see into).
 *
 * Implementation: GCC nested functions. The body becomes a nested function whose parameters are
 * the captured names (so they shadow the enclosing locals and no static chain is needed); a thunk
 * unpacks a heap copy of the captured values and calls the body through a pointer stored with
 * them (calling it by name would make GCC pass a static chain at -O0); the thunk is registered
 * through the ABI's
 * _ITM_addUserCommitAction/_ITM_addUserUndoAction. The captured values are read through the
 * transaction (a transactional copy), so values written earlier in the same transaction are seen
 * even under a redo-log algorithm. Only standard ABI calls are used: programs that use this
 * header run unchanged on GCC's libitm too.
 */
#ifndef TMKIT_H
#define TMKIT_H

#include <stddef.h>
#include <stdlib.h>

#include "tmkit/abi.h"     /* the Intel TM ABI calls below */
#include "tmkit/compat.h"  /* parses with clang too (tmkit advise) */
#include "tmkit/counter.h" /* tm_counter_t: deferred commutative counters */
#include "tmkit/wait.h"    /* tm_retry, tm_cond_t: blocking waits inside transactions */
#include "tmkit/group.h"   /* tm_group_t: lock groups for sections that cannot be rolled back */
#include "tmkit/atomic.h"  /* tm_atomic_*: one-word atomics inside and outside transactions */
#include "tmkit/privatize.h" /* tm_no_privatization: a commit that need not wait for others */
#include "tmkit/volatile.h" /* tm_volatile_read: a volatile read inside a transaction */
#ifndef __cplusplus
/* strlen, snprintf, strtol, qsort ... inside transactions (C only: in C++ <cstring> overloads
 * strchr & co., which transaction_wrap cannot name). TMKIT_NO_LIBC leaves them out. */
#ifndef TMKIT_NO_LIBC
#include "tmkit/libc.h"
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum { TMKIT_ON_COMMIT = 1, TMKIT_ON_ABORT = 2 };

/* The handlers use _ITM_inTransaction, _ITM_addUserCommitAction, _ITM_addUserUndoAction and
 * _ITM_memcpyRtWn (tmkit/abi.h), present in tmkit and in GCC's libitm alike. */

struct tmkit__closure {
    void (*thunk)(void *);
    int ready; /* the captures are copied (an abort handler runs only then) */
    /* a flexible array member: C99, and a GNU extension in C++ (hence __extension__) */
    __extension__ unsigned char data[] __attribute__((aligned(16)));
};

static void tmkit__closure_run(void *p)
{
    struct tmkit__closure *c = (struct tmkit__closure *)p;
    c->thunk(c->data);
    free(c);
}

static void tmkit__closure_drop(void *p) { free(p); }

static void tmkit__closure_undo(void *p)
{
    struct tmkit__closure *c = (struct tmkit__closure *)p;
    if (c->ready)
        c->thunk(c->data);
    free(c);
}

/* Copies `size` bytes at `captures` (through the transaction, so values written earlier in it
 * are seen under any algorithm) and registers thunk(copy) to run on commit or on abort. Exactly
 * one of the two registered actions runs, and each frees the copy. */
static inline __attribute__((transaction_pure, unused)) void
tmkit_handler_register(int when, void (*thunk)(void *), const void *captures, size_t size)
{
    if (_ITM_inTransaction() == 0) {
        if (when == TMKIT_ON_COMMIT) /* the thunk only reads the captures */
            thunk(TMKIT__UNCONST(void *, captures));
        return;
    }
    struct tmkit__closure *c = (struct tmkit__closure *)malloc(sizeof *c + size);
    if (!c)
        abort(); /* cannot register: continuing would silently lose the handler */
    c->thunk = thunk;
    c->ready = 0;
    /* The undo action first: the copy below is a transactional read, which may abort the
     * attempt, and the closure must not leak then (nor an abort handler run on no captures). */
    if (when == TMKIT_ON_COMMIT) {
        _ITM_addUserUndoAction(tmkit__closure_drop, c);
        _ITM_memcpyRtWn(c->data, captures, size);
        _ITM_addUserCommitAction(tmkit__closure_run, 1u /* _ITM_noTransactionId */, c);
    } else {
        _ITM_addUserUndoAction(tmkit__closure_undo, c);
        _ITM_memcpyRtWn(c->data, captures, size);
        c->ready = 1;
        _ITM_addUserCommitAction(tmkit__closure_drop, 1u, c);
    }
}

/* Forces the compiler to reload memory (see the caveat above). */
#define tmkit_compiler_barrier() __asm__ __volatile__("" ::: "memory")

#ifndef __cplusplus
/* ---- argument-list machinery (up to 8 captures), in plain C99: gcc -pedantic objects to
 * __VA_OPT__ before C2X even where the header only defines it ---- */
/* The number of arguments, 1 for none as for one (TMKIT__MAP_1 tells those two apart). */
#define TMKIT__NARG(...) TMKIT__NARG_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define TMKIT__NARG_(a1, a2, a3, a4, a5, a6, a7, a8, n, ...) n
/* 1 if the argument (a name, or nothing) is empty: only then is TMKIT__PROBE followed by its
 * parentheses, and expands to two arguments. */
#define TMKIT__EMPTY(a) TMKIT__SECOND_(TMKIT__PROBE a (), 0, ~)
#define TMKIT__PROBE(...) ~, 1
#define TMKIT__SECOND_(...) TMKIT__SECOND(__VA_ARGS__)
#define TMKIT__SECOND(a, b, ...) b
#define TMKIT__CAT(a, b) TMKIT__CAT_(a, b)
#define TMKIT__CAT_(a, b) a##b
#define TMKIT__MAP(m, ...) TMKIT__CAT(TMKIT__MAP_, TMKIT__NARG(__VA_ARGS__))(m, __VA_ARGS__)
#define TMKIT__MAP_1(m, a) TMKIT__CAT(TMKIT__MAP_1_, TMKIT__EMPTY(a))(m, a)
#define TMKIT__MAP_1_0(m, a) m(a)
#define TMKIT__MAP_1_1(m, a)
#define TMKIT__MAP_2(m, a, ...) m(a) TMKIT__MAP_1(m, __VA_ARGS__)
#define TMKIT__MAP_3(m, a, ...) m(a) TMKIT__MAP_2(m, __VA_ARGS__)
#define TMKIT__MAP_4(m, a, ...) m(a) TMKIT__MAP_3(m, __VA_ARGS__)
#define TMKIT__MAP_5(m, a, ...) m(a) TMKIT__MAP_4(m, __VA_ARGS__)
#define TMKIT__MAP_6(m, a, ...) m(a) TMKIT__MAP_5(m, __VA_ARGS__)
#define TMKIT__MAP_7(m, a, ...) m(a) TMKIT__MAP_6(m, __VA_ARGS__)
#define TMKIT__MAP_8(m, a, ...) m(a) TMKIT__MAP_7(m, __VA_ARGS__)
#define TMKIT__FIELD(v) __typeof__(v) v;
#define TMKIT__INIT(v) .v = v,
#define TMKIT__PARAM(v) , __typeof__(v) v
#define TMKIT__ARG(v) , tmkit__c->v

/* Nested functions are GNU C: each declaration is marked __extension__, so that programs
 * built with -pedantic accept the expansion (the handler's body included). */
#define TMKIT__HANDLER(when, n, ...)                                                         \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic error \"-Wtrampolines\"")        \
    __extension__ auto void TMKIT__CAT(tmkit__body_, n)(char tmkit__unused                   \
                                                        TMKIT__MAP(TMKIT__PARAM, __VA_ARGS__)); \
    struct TMKIT__CAT(tmkit__cap_, n) {                                                      \
        __typeof__(&TMKIT__CAT(tmkit__body_, n)) tmkit__fn;                                  \
        TMKIT__MAP(TMKIT__FIELD, __VA_ARGS__)                                                \
    } TMKIT__CAT(tmkit__vals_, n) = {.tmkit__fn = TMKIT__CAT(tmkit__body_, n),               \
                                     TMKIT__MAP(TMKIT__INIT, __VA_ARGS__)};                  \
    __extension__ auto void TMKIT__CAT(tmkit__thunk_, n)(void *);                            \
    __extension__ void TMKIT__CAT(tmkit__thunk_, n)(void *tmkit__p)                          \
    {                                                                                        \
        struct TMKIT__CAT(tmkit__cap_, n) *tmkit__c = tmkit__p;                              \
        tmkit__c->tmkit__fn(0 TMKIT__MAP(TMKIT__ARG, __VA_ARGS__));                          \
    }                                                                                        \
    tmkit_handler_register(when, TMKIT__CAT(tmkit__thunk_, n), &TMKIT__CAT(tmkit__vals_, n), \
                           sizeof TMKIT__CAT(tmkit__vals_, n));                              \
    _Pragma("GCC diagnostic pop")                                                            \
    __extension__ void TMKIT__CAT(tmkit__body_, n)(char tmkit__unused __attribute__((unused)) \
                                                   TMKIT__MAP(TMKIT__PARAM, __VA_ARGS__))

#ifdef __OPTIMIZE__
#define tm_on_commit(...) TMKIT__HANDLER(TMKIT_ON_COMMIT, __COUNTER__, __VA_ARGS__)
#define tm_on_abort(...) TMKIT__HANDLER(TMKIT_ON_ABORT, __COUNTER__, __VA_ARGS__)
#else
/* At -O0 GCC gives every address-taken nested function a static chain, hence a trampoline on
 * an executable stack. Refuse clearly instead. */
#define tm_on_commit(...) _Static_assert(0, "tm_on_commit in C needs -Og or higher (GCC makes " \
                                            "stack trampolines for nested functions at -O0)");   \
    static void TMKIT__CAT(tmkit__never_, __COUNTER__)(void)
#define tm_on_abort(...) tm_on_commit(__VA_ARGS__)
#endif
#endif /* !__cplusplus */

#ifdef __cplusplus
} /* extern "C" */

#include <type_traits>

/* C++: the same handlers with lambdas, at any optimisation level:
 *     tmkit::on_commit([=] { pool_release(pool, e); });
 * The lambda is copied bytewise through the transaction, so its captures must be trivially
 * copyable (capture pointers and values, not std::string). */
namespace tmkit {
namespace detail {
template <class F> void invoke(void *p) { (*static_cast<F *>(p))(); }
} // namespace detail

template <class F> [[gnu::transaction_pure]] inline void on_commit(const F &f)
{
    static_assert(std::is_trivially_copyable<F>::value,
                  "tmkit::on_commit: captures must be trivially copyable");
    tmkit_handler_register(TMKIT_ON_COMMIT, &detail::invoke<F>, &f, sizeof f);
}

template <class F> [[gnu::transaction_pure]] inline void on_abort(const F &f)
{
    static_assert(std::is_trivially_copyable<F>::value,
                  "tmkit::on_abort: captures must be trivially copyable");
    tmkit_handler_register(TMKIT_ON_ABORT, &detail::invoke<F>, &f, sizeof f);
}
} // namespace tmkit
#endif
#endif

/* C++ exceptions inside transactions (_ITM_cxa_* hooks, called instead of the __cxa_* ones).
 *
 * Life of an exception object created in a transaction: allocated (recorded: freed if the
 * transaction aborts) -> thrown -> either leaves the transaction (GCC commits it through
 * _ITM_commitTransactionEH) or is caught inside (begin_catch drops the record: from then on the
 * catch owns it; a rollback ends every catch still open). A rollback also restores the count of
 * uncaught exceptions, which a throw raised. The C++ runtime is reached through weak references,
 * so C programs do not need it.
 */
#include <stdlib.h>

#include "../core/tx.h"
#include "abi.h"

extern void *__cxa_allocate_exception(size_t) __attribute__((weak));
extern void __cxa_free_exception(void *) __attribute__((weak));
extern void __cxa_throw(void *, void *, void (*)(void *)) __attribute__((weak, noreturn));
extern void *__cxa_begin_catch(void *) __attribute__((weak));
extern void __cxa_end_catch(void) __attribute__((weak));
extern void *__cxa_get_globals(void) __attribute__((weak));
extern void _Unwind_DeleteException(void *) __attribute__((weak));

/* Itanium C++ ABI: struct __cxa_eh_globals { void *caughtExceptions; unsigned uncaughtExceptions; }
 * and the thrown object directly follows the 32-byte _Unwind_Exception header. */
struct tm_cxa_eh_globals {
    void *caught;
    unsigned int uncaught;
};
#define TM_UNWIND_HEADER_SIZE 32

static void tm_eh_save_uncaught(tm_tx *tx)
{
    if (!tx->eh_saved && __cxa_get_globals) {
        tx->uncaught_at_start = ((struct tm_cxa_eh_globals *)__cxa_get_globals())->uncaught;
        tx->eh_saved = true;
    }
}

static void tm_free_exception_thunk(void *obj, uintptr_t aux)
{
    (void)aux;
    __cxa_free_exception(obj);
}

/* The allocation record of an exception object this transaction allocated (and no catch has
 * taken yet) that contains [p, p+len), or NULL. Its aux is the object's size. */
static const tm_action *tm_eh_record(const tm_tx *tx, const void *p, size_t len)
{
    uintptr_t a = (uintptr_t)p;
    for (size_t i = 0; i < tx->n_actions; i++) {
        const tm_action *act = &tx->actions[i];
        uintptr_t o = (uintptr_t)act->arg;
        if (act->kind == TM_ACT_FREE_ON_ABORT && act->fn == tm_free_exception_thunk && a >= o &&
            a + len <= o + act->aux)
            return act;
    }
    return NULL;
}

void tm_eh_rollback(tm_tx *tx, uint32_t catch_target, bool outer)
{
    while (tx->catch_count > catch_target) {
        tx->catch_count--;
        __cxa_end_catch();
    }
    if (!outer)
        return;
    if (tx->eh_in_flight) {
        /* The exception leaving the aborted attempt. If the attempt allocated it, the
         * allocation record frees it; otherwise destroy it through the unwinder. */
        void *obj = (char *)tx->eh_in_flight + TM_UNWIND_HEADER_SIZE;
        bool recorded = tm_eh_record(tx, obj, 0) != NULL;
        if (!recorded && _Unwind_DeleteException)
            _Unwind_DeleteException(tx->eh_in_flight);
        tx->eh_in_flight = NULL;
    }
    if (tx->eh_saved && __cxa_get_globals)
        ((struct tm_cxa_eh_globals *)__cxa_get_globals())->uncaught = tx->uncaught_at_start;
    tx->eh_saved = false;
}

TM_EXPORT void *_ITM_cxa_allocate_exception(size_t size)
{
    void *obj = __cxa_allocate_exception(size);
    tm_tx *tx = tm_cur;
    if (tx && tx->nesting) {
        tm_eh_save_uncaught(tx);
        tm_action_add(tx, TM_ACT_FREE_ON_ABORT, tm_free_exception_thunk, obj, size);
    }
    return obj;
}

TM_EXPORT void _ITM_cxa_free_exception(void *obj)
{
    tm_tx *tx = tm_cur;
    if (tx && tx->nesting)
        tm_action_forget(tx, TM_ACT_FREE_ON_ABORT, obj);
    __cxa_free_exception(obj);
}

/* The object of an exception this transaction allocated, as the transaction wrote it: the
 * unwinder and the catch clause's type match read it directly, so under a redo log (NOrec,
 * orec_lazy) what the transaction stored into it (`throw p` stores p through a barrier) must be
 * in memory before the throw, and must not be written back at the commit, by which time a catch
 * inside the transaction may have freed it. (GCC's libitm testsuite, libstdc++-safeexc.C: a
 * thrown pointer arrived as the previous exception's bytes.) */
static void tm_eh_flush_object(tm_tx *tx, void *obj)
{
    const tm_action *rec = tm_eh_record(tx, obj, 0);
    if (rec && rec->arg == obj)
        tm_wset_flush_range(&tx->wset, obj, (size_t)rec->aux);
}

/* Does [p, p+len) lie within an exception object this transaction allocated and has not
 * thrown into a catch yet? (memfns.c) */
bool tm_eh_owns(const tm_tx *tx, const void *p, size_t len)
{
    return tm_eh_record(tx, p, len) != NULL;
}

TM_EXPORT __attribute__((noreturn)) void _ITM_cxa_throw(void *obj, void *tinfo, void (*dest)(void *))
{
    tm_tx *tx = tm_cur;
    if (tx && tx->nesting) {
        tm_eh_save_uncaught(tx);
        if (tx->wset.n)
            tm_eh_flush_object(tx, obj);
    }
    __cxa_throw(obj, tinfo, dest);
}

TM_EXPORT void *_ITM_cxa_begin_catch(void *exc)
{
    tm_tx *tx = tm_cur;
    if (tx && tx->nesting) {
        tm_action_forget(tx, TM_ACT_FREE_ON_ABORT, (char *)exc + TM_UNWIND_HEADER_SIZE);
        tx->catch_count++;
    }
    return __cxa_begin_catch(exc);
}

TM_EXPORT void _ITM_cxa_end_catch(void)
{
    tm_tx *tx = tm_cur;
    if (tx && tx->nesting && tx->catch_count)
        tx->catch_count--;
    __cxa_end_catch();
}

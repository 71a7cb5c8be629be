/* Transactional allocation: malloc/calloc are undone if the transaction aborts, free is deferred
 * until it commits. The C++ operator new/delete clones (_ZGTt*) do the same with the program's
 * own operators, reached through weak references so C programs need no C++ runtime. */
#include <stdlib.h>

#include "../core/tx.h"

static void tm_free_thunk(void *p, uintptr_t aux)
{
    (void)aux;
    free(p);
}

static inline tm_tx *tm_alloc_tx(void)
{
    tm_tx *tx = tm_cur;
    return (tx && tx->nesting) ? tx : NULL;
}

/* Records an allocation that the transaction made: released if it aborts. Irrevocable
 * transactions cannot abort, so nothing needs recording then. When the record cannot be
 * made (the action list cannot grow), the allocation is given back and the program sees NULL,
 * as from a malloc that failed. */
static void *tm_note_alloc(void *p, void (*release)(void *, uintptr_t), uintptr_t aux)
{
    tm_tx *tx = tm_alloc_tx();
    if (p && tx && !((tx->flags & TM_F_IRREVOCABLE) && tx->disp == &tm_disp_direct) &&
        !tm_action_add_room(tx, TM_ROOM_TRY, TM_ACT_FREE_ON_ABORT, release, p, aux)) {
        release(p, aux);
        return NULL;
    }
    return p;
}

/* A free that cannot be recorded is a log that cannot grow (tm_log_grow). */
static void tm_defer_free(void *p, void (*release)(void *, uintptr_t), uintptr_t aux)
{
    tm_tx *tx = tm_alloc_tx();
    if (!p)
        return;
    if (!tx)
        release(p, aux);
    else
        tm_action_add_room(tx, TM_ROOM_LOG, TM_ACT_FREE_ON_COMMIT, release, p, aux);
}

TM_EXPORT __attribute__((malloc)) void *_ITM_malloc(size_t size)
{
    return tm_note_alloc(malloc(size), tm_free_thunk, 0);
}

TM_EXPORT __attribute__((malloc)) void *_ITM_calloc(size_t n, size_t size)
{
    return tm_note_alloc(calloc(n, size), tm_free_thunk, 0);
}

TM_EXPORT void _ITM_free(void *p) { tm_defer_free(p, tm_free_thunk, 0); }

/* ---- C++ operator new / delete clones ---------------------------------------------------- */

typedef struct tm_nothrow_t tm_nothrow_t; /* std::nothrow_t: only its address is passed on */

extern void *_Znwm(size_t) __attribute__((weak));
extern void *_Znam(size_t) __attribute__((weak));
extern void *_ZnwmRKSt9nothrow_t(size_t, const tm_nothrow_t *) __attribute__((weak));
extern void *_ZnamRKSt9nothrow_t(size_t, const tm_nothrow_t *) __attribute__((weak));
extern void _ZdlPv(void *) __attribute__((weak));
extern void _ZdaPv(void *) __attribute__((weak));
extern void _ZdlPvRKSt9nothrow_t(void *, const tm_nothrow_t *) __attribute__((weak));
extern void _ZdaPvRKSt9nothrow_t(void *, const tm_nothrow_t *) __attribute__((weak));
extern void _ZdlPvm(void *, size_t) __attribute__((weak));
extern void _ZdlPvmRKSt9nothrow_t(void *, size_t, const tm_nothrow_t *) __attribute__((weak));

static void tm_delete_thunk(void *p, uintptr_t aux) { (void)aux; _ZdlPv(p); }
static void tm_delete_array_thunk(void *p, uintptr_t aux) { (void)aux; _ZdaPv(p); }
static void tm_delete_sized_thunk(void *p, uintptr_t size) { _ZdlPvm(p, (size_t)size); }

TM_EXPORT void *_ZGTtnwm(size_t n) { return tm_note_alloc(_Znwm(n), tm_delete_thunk, 0); }
TM_EXPORT void *_ZGTtnam(size_t n) { return tm_note_alloc(_Znam(n), tm_delete_array_thunk, 0); }

TM_EXPORT void *_ZGTtnwmRKSt9nothrow_t(size_t n, const tm_nothrow_t *nt)
{
    return tm_note_alloc(_ZnwmRKSt9nothrow_t(n, nt), tm_delete_thunk, 0);
}

TM_EXPORT void *_ZGTtnamRKSt9nothrow_t(size_t n, const tm_nothrow_t *nt)
{
    return tm_note_alloc(_ZnamRKSt9nothrow_t(n, nt), tm_delete_array_thunk, 0);
}

TM_EXPORT void _ZGTtdlPv(void *p) { tm_defer_free(p, tm_delete_thunk, 0); }
TM_EXPORT void _ZGTtdaPv(void *p) { tm_defer_free(p, tm_delete_array_thunk, 0); }

/* The nothrow deletes are only called by the compiler when a nothrow new's constructor throws;
 * the plain delete releases the same memory. */
TM_EXPORT void _ZGTtdlPvRKSt9nothrow_t(void *p, const tm_nothrow_t *nt)
{
    (void)nt;
    tm_defer_free(p, tm_delete_thunk, 0);
}

TM_EXPORT void _ZGTtdaPvRKSt9nothrow_t(void *p, const tm_nothrow_t *nt)
{
    (void)nt;
    tm_defer_free(p, tm_delete_array_thunk, 0);
}

TM_EXPORT void _ZGTtdlPvm(void *p, size_t size)
{
    tm_defer_free(p, tm_delete_sized_thunk, size);
}

TM_EXPORT void _ZGTtdlPvmRKSt9nothrow_t(void *p, size_t size, const tm_nothrow_t *nt)
{
    (void)nt;
    tm_defer_free(p, tm_delete_sized_thunk, size);
}

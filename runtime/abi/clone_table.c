/* Transactional clone tables.
 *
 * Every object built with -fgnu-tm registers, from its start-up code, a table of
 * {original, transactional clone} pairs. Lookups (indirect calls inside transactions) take a
 * shared lock and binary-search each table; tables are sorted once at registration. Registration
 * happens at load/unload time only, so the lock is almost never contended for writing.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../core/tx.h"

typedef struct tm_clone_pair {
    void *orig, *clone;
} tm_clone_pair;

typedef struct tm_clone_table {
    const void *key; /* the table pointer the object registered (for deregistration) */
    tm_clone_pair *pairs;
    size_t n;
    uintptr_t lo, hi; /* range of originals: a quick filter */
    struct tm_clone_table *next;
} tm_clone_table;

static pthread_rwlock_t tm_clone_lock = PTHREAD_RWLOCK_INITIALIZER;
static tm_clone_table *tm_clone_tables;

static int tm_pair_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const tm_clone_pair *)a)->orig;
    uintptr_t y = (uintptr_t)((const tm_clone_pair *)b)->orig;
    return x < y ? -1 : x > y;
}

TM_EXPORT void _ITM_registerTMCloneTable(void *table, size_t n)
{
    tm_clone_table *t = malloc(sizeof *t);
    tm_clone_pair *pairs = malloc((n ? n : 1) * sizeof *pairs);
    if (!t || !pairs)
        tm_fatal("out of memory registering a clone table of %zu entries", n);
    memcpy(pairs, table, n * sizeof *pairs);
    qsort(pairs, n, sizeof *pairs, tm_pair_cmp);
    *t = (tm_clone_table){table, pairs, n, n ? (uintptr_t)pairs[0].orig : 0,
                          n ? (uintptr_t)pairs[n - 1].orig : 0, NULL};
    pthread_rwlock_wrlock(&tm_clone_lock);
    t->next = tm_clone_tables;
    tm_clone_tables = t;
    pthread_rwlock_unlock(&tm_clone_lock);
}

TM_EXPORT void _ITM_deregisterTMCloneTable(void *table)
{
    pthread_rwlock_wrlock(&tm_clone_lock);
    for (tm_clone_table **p = &tm_clone_tables; *p; p = &(*p)->next)
        if ((*p)->key == table) {
            tm_clone_table *dead = *p;
            *p = dead->next;
            free(dead->pairs);
            free(dead);
            break;
        }
    pthread_rwlock_unlock(&tm_clone_lock);
}

static void *tm_clone_find(void *fn)
{
    void *found = NULL;
    uintptr_t key = (uintptr_t)fn;
    pthread_rwlock_rdlock(&tm_clone_lock);
    for (tm_clone_table *t = tm_clone_tables; t && !found; t = t->next) {
        if (key < t->lo || key > t->hi)
            continue;
        size_t lo = 0, hi = t->n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            uintptr_t m = (uintptr_t)t->pairs[mid].orig;
            if (m == key) {
                found = t->pairs[mid].clone;
                break;
            }
            if (m < key)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    pthread_rwlock_unlock(&tm_clone_lock);
    return found;
}

TM_EXPORT void *_ITM_getTMCloneOrIrrevocable(void *fn)
{
    void *clone = tm_clone_find(fn);
    if (clone)
        return clone;
    tm_go_irrevocable(tm_cur, (uintptr_t)__builtin_frame_address(0),
                      (uintptr_t)__builtin_return_address(0));
    return fn;
}

TM_EXPORT void *_ITM_getTMCloneSafe(void *fn)
{
    void *clone = tm_clone_find(fn);
    if (!clone)
        tm_fatal("_ITM_getTMCloneSafe: function %p has no transactional clone (an indirect call "
                 "in an atomic transaction reached code not marked transaction_safe)", fn);
    return clone;
}

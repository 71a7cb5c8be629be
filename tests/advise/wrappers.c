/* Locks taken through wrapper functions and macros, a lock inside a struct and an array of
 * locks, early returns, goto and break exits, and a section held across a function return. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct item {
    pthread_mutex_t lock;
    int refcount;
    char key[32];
    struct item *next;
};

#define NBUCKETS 64
static pthread_mutex_t bucket_locks[NBUCKETS];
static struct item *buckets[NBUCKETS];
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static long hits, misses;

#define CACHE_LOCK() pthread_mutex_lock(&cache_lock)
#define CACHE_UNLOCK() do { pthread_mutex_unlock(&cache_lock); } while (0)

static void item_lock(struct item *it) { pthread_mutex_lock(&it->lock); }
static void item_unlock(struct item *it) { pthread_mutex_unlock(&it->lock); }
static void lock_ptr(pthread_mutex_t *m) { pthread_mutex_lock(m); }
static void unlock_ptr(pthread_mutex_t *m) { pthread_mutex_unlock(m); }
static void item_lock2(struct item *it) { item_lock(it); }     /* wrapper of a wrapper */

void item_incr(struct item *it)
{
    item_lock2(it);
    it->refcount++;
    item_unlock(it);
}

struct item *bucket_find(unsigned h, int want)
{
    struct item *it;
    lock_ptr(&bucket_locks[h % NBUCKETS]);
    for (it = buckets[h % NBUCKETS]; it; it = it->next) {
        if (it->refcount == want) {
            unlock_ptr(&bucket_locks[h % NBUCKETS]);
            return it;                                   /* early return */
        }
    }
    unlock_ptr(&bucket_locks[h % NBUCKETS]);
    return NULL;
}

int count_hit(int hit)
{
    CACHE_LOCK();
    if (hit) {
        hits++;
        CACHE_UNLOCK();
        goto out;                                        /* goto exit */
    }
    misses++;
    CACHE_UNLOCK();
out:
    return hit;
}

int drain(int n)
{
    int done = 0;
    while (n-- > 0) {
        CACHE_LOCK();
        if (misses == 0) {
            CACHE_UNLOCK();
            break;                                       /* break exit */
        }
        misses--;
        done++;
        CACHE_UNLOCK();
    }
    return done;
}

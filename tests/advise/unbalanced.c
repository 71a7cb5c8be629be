/* Sections the analysis must report rather than guess: one that returns holding its lock, a
 * release without an acquisition on some path, a trylock result kept in a variable. */
#include <pthread.h>

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t spin;
static int cached, stats;

/* Cross-function: returns holding cache_lock on success. */
int cache_begin(int n)
{
    pthread_mutex_lock(&cache_lock);
    if (n < 0) {
        pthread_mutex_unlock(&cache_lock);
        return -1;
    }
    cached = n;
    return 0;
}

void cache_end(void)
{
    pthread_mutex_unlock(&cache_lock);
}

void maybe_locked(int take)
{
    if (take)
        pthread_mutex_lock(&stats_lock);
    stats++;
    pthread_mutex_unlock(&stats_lock);
}

int spin_try(void)
{
    int rc = pthread_spin_trylock(&spin);
    if (rc == 0) {
        stats--;
        pthread_spin_unlock(&spin);
    }
    return rc;
}

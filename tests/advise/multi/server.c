/* Calls into another translation unit: one helper not declared transaction_safe (GCC cannot
 * use it in a transaction although its body is safe), two declared transaction_safe (one
 * through a macro). */
#include <pthread.h>
#include "stats.h"

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

void on_get(void)
{
    pthread_mutex_lock(&stats_lock);
    stats_count_get();
    pthread_mutex_unlock(&stats_lock);
}

void on_set(long n)
{
    pthread_mutex_lock(&stats_lock);
    global_stats.sets++;
    stats_add_bytes(n);
    pthread_mutex_unlock(&stats_lock);
}

long report(void)
{
    pthread_mutex_lock(&stats_lock);
    long t = stats_total();
    pthread_mutex_unlock(&stats_lock);
    return t;
}

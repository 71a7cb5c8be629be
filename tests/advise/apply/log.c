/* The log: lookups print when kv_verbose > 2 (rare), and a thread waits on a condition
 * variable for lines to count (its lock must stay a lock: a transaction cannot wait on it). */
#include <stdio.h>

#include "kv.h"

int kv_verbose;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t log_cond = PTHREAD_COND_INITIALIZER;
static long pending, lines;
static int stopping;
static unsigned short wakeups;          /* no tm_atomic_* for unsigned short */
static pthread_t logger;

unsigned int kv_hash_sum(const char *key, size_t n)
{
    unsigned int h = 0;
    for (size_t i = 0; i < n; i++)
        h += (unsigned char)key[i];
    return h;
}

unsigned int kv_hash_mul(const char *key, size_t n)
{
    unsigned int h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)key[i]) * 16777619u;
    return h;
}

void kv_log_lookup(const char *key, unsigned int when)
{
    fprintf(stderr, "lookup %s at %u\n", key, when);
}

static void *log_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&log_lock);
    while (!stopping || pending) {
        while (!pending && !stopping)
            pthread_cond_wait(&log_cond, &log_lock);
        __atomic_fetch_add(&wakeups, 1, __ATOMIC_RELAXED);
        lines += pending;
        pending = 0;
    }
    pthread_mutex_unlock(&log_lock);
    return NULL;
}

void kv_log_start(void)
{
    pthread_create(&logger, NULL, log_main, NULL);
}

void kv_log_stop(void)
{
    pthread_mutex_lock(&log_lock);
    pending++;
    stopping = 1;
    pthread_cond_signal(&log_cond);
    pthread_mutex_unlock(&log_lock);
    pthread_join(logger, NULL);
}

long kv_log_lines(void)
{
    return lines;
}

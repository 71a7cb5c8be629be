/* The log: lookups print when kv_verbose > 2 (rare). The workers note lines, which a logger
 * thread waits for on a condition variable and counts; kv_log_drained waits, until a deadline,
 * on a second one for the logger to have counted them all. Every wait and signal of both is
 * under log_lock (or, kv_log_note's signal, after it), so the conditions become tm_cond_t, the
 * waits tm_cond_wait in tm_atomic_retry, and the lock goes. */
#include <stdio.h>
#include <time.h>

#include "kv.h"

int kv_verbose;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t log_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t drained_cond;
static long pending, lines;
static int stopping;
static unsigned short printed;          /* no tm_atomic_* for unsigned short */
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
    __atomic_fetch_add(&printed, 1, __ATOMIC_RELAXED);
}

static void *log_main(void *arg)
{
    int stop = 0;
    (void)arg;
    while (!stop) {
        pthread_mutex_lock(&log_lock);
        while (!pending && !stopping)
            pthread_cond_wait(&log_cond, &log_lock);
        lines += pending;
        pending = 0;
        stop = stopping;
        pthread_cond_broadcast(&drained_cond);
        pthread_mutex_unlock(&log_lock);
    }
    return NULL;
}

void kv_log_start(void)
{
    pthread_cond_init(&drained_cond, NULL);
    pthread_create(&logger, NULL, log_main, NULL);
}

void kv_log_note(void)
{
    pthread_mutex_lock(&log_lock);
    pending++;
    pthread_mutex_unlock(&log_lock);
    pthread_cond_signal(&log_cond);
}

int kv_log_drained(long ms)
{
    struct timespec at;
    int ok;
    clock_gettime(CLOCK_REALTIME, &at);
    at.tv_sec += ms / 1000;
    at.tv_nsec += ms % 1000 * 1000000L;
    if (at.tv_nsec >= 1000000000L) {
        at.tv_sec++;
        at.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&log_lock);
    if (pending)
        pthread_cond_timedwait(&drained_cond, &log_lock, &at);
    ok = !pending;
    pthread_mutex_unlock(&log_lock);
    return ok;
}

void kv_log_stop(void)
{
    pthread_mutex_lock(&log_lock);
    pending++;
    stopping = 1;
    pthread_cond_signal(&log_cond);
    pthread_mutex_unlock(&log_lock);
    pthread_join(logger, NULL);
    pthread_cond_destroy(&drained_cond);
}

long kv_log_lines(void)
{
    return lines;
}

/* Counters under their own lock, updated in the cases of a switch (one by += and -=, read
 * without the lock); and a peak kept under a second lock whose only section becomes a
 * transaction (the lock is then unused; the peak is assigned, so it is no counter). */
#include "kv.h"

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t peak_lock = PTHREAD_MUTEX_INITIALIZER;
static long hits, misses, sets, peak;
static long balance;

void kv_count(enum kv_op op)
{
    switch (op) {
    case KV_GET_HIT:
        pthread_mutex_lock(&stats_lock);
        hits++;
        balance -= 1;
        pthread_mutex_unlock(&stats_lock);
        break;
    case KV_GET_MISS:
        pthread_mutex_lock(&stats_lock);
        misses++;
        pthread_mutex_unlock(&stats_lock);
        break;
    default:
        pthread_mutex_lock(&stats_lock);
        sets++;
        balance += 3;
        pthread_mutex_unlock(&stats_lock);
        break;
    }
}

long kv_counted(enum kv_op op)
{
    long n;
    pthread_mutex_lock(&stats_lock);
    n = op == KV_GET_HIT ? hits : op == KV_GET_MISS ? misses : sets;
    pthread_mutex_unlock(&stats_lock);
    return n;
}

void kv_note_peak(long n)
{
    pthread_mutex_lock(&peak_lock);
    if (n > peak)
        peak = n;
    pthread_mutex_unlock(&peak_lock);
}

long kv_peak(void)
{
    return peak;
}

long kv_balance(void)
{
    return balance;
}

/* The store: one lock over a small table; each operation hashes through a function pointer,
 * compares keys with strlen/memcmp, reads the clock and, rarely, logs. */
#define _GNU_SOURCE
#include <string.h>

#include "kv.h"

struct entry {
    char key[16];
    long value;
    unsigned int stamp;
    int used;
};

static struct entry table[KV_KEYS];
static pthread_mutex_t store_lock = PTHREAD_MUTEX_INITIALIZER;
kv_hash_fn kv_hash = kv_hash_sum;

static struct entry *slot(const char *key)
{
    size_t n = strlen(key);
    unsigned int h = kv_hash(key, n) % KV_KEYS;
    for (unsigned int i = 0; i < KV_KEYS; i++) {
        struct entry *e = &table[(h + i) % KV_KEYS];
        if (!e->used || (strlen(e->key) == n && memcmp(e->key, key, n) == 0))
            return e;
    }
    return NULL;
}

int kv_get(const char *key, long *value)
{
    int found = 0;
    pthread_mutex_lock(&store_lock);
    struct entry *e = slot(key);
    if (e != NULL && e->used) {
        *value = e->value;
        e->stamp = kv_clock;
        found = 1;
    }
    if (kv_verbose > 2)
        kv_log_lookup(key, kv_clock);
    pthread_mutex_unlock(&store_lock);
    return found;
}

void kv_set(const char *key, long value)
{
    pthread_mutex_lock(&store_lock);
    struct entry *e = slot(key);
    if (e != NULL) {
        if (!e->used) {
            size_t n = strlen(key);
            memcpy(e->key, key, n < sizeof e->key ? n + 1 : sizeof e->key);
            e->used = 1;
        }
        e->value += value;
        e->stamp = kv_clock;
    }
    pthread_mutex_unlock(&store_lock);
}

long kv_total(void)
{
    long sum = 0;
    pthread_mutex_lock(&store_lock);
    for (int i = 0; i < KV_KEYS; i++)
        if (table[i].used)
            sum += table[i].value;
    pthread_mutex_unlock(&store_lock);
    return sum;
}

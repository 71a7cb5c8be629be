/* The store: one lock over a small table; each operation hashes through a function pointer,
 * compares keys with strlen/memcmp, reads the clock and, rarely, logs. A lookup takes a
 * reference on its entry with an __atomic builtin inside the section and drops it after the
 * section; a set bumps the version with __sync compare-and-swap (main.c reads it too). */
#define _GNU_SOURCE
#include <string.h>

#include "kv.h"

struct entry {
    char key[16];
    long value;
    unsigned int stamp;
    int used;
    unsigned int refs;
};

static struct entry table[KV_KEYS];
static pthread_mutex_t store_lock = PTHREAD_MUTEX_INITIALIZER;
kv_hash_fn kv_hash = kv_hash_sum;
long kv_version;

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

static void entry_release(struct entry *e)
{
    __atomic_fetch_sub(&e->refs, 1, __ATOMIC_RELEASE);
}

int kv_get(const char *key, long *value)
{
    int found = 0;
    struct entry *held = NULL;
    pthread_mutex_lock(&store_lock);
    struct entry *e = slot(key);
    if (e != NULL && e->used) {
        *value = e->value;
        e->stamp = kv_clock;
        __atomic_add_fetch(&e->refs, 1, __ATOMIC_ACQUIRE);
        held = e;
        found = 1;
    }
    if (kv_verbose > 2)
        kv_log_lookup(key, kv_clock);
    pthread_mutex_unlock(&store_lock);
    if (held != NULL)
        entry_release(held);
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
        long seen = __atomic_load_n(&kv_version, __ATOMIC_RELAXED);
        __sync_bool_compare_and_swap(&kv_version, seen, seen + 1);
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

long kv_refs(void)
{
    long n = 0;
    pthread_mutex_lock(&store_lock);
    for (int i = 0; i < KV_KEYS; i++)
        n += __sync_fetch_and_add(&table[i].refs, 0);
    pthread_mutex_unlock(&store_lock);
    return n;
}

/* A small key-value store with lock-based critical sections, the fixture of tests/advise/apply.sh:
 * `tmkit advise --apply` must carry it to transactions the way it carries memcached (calls into
 * other files, a function pointer, a volatile clock, libc string calls, switch cases, a lock that
 * becomes unused, condition variables that become tm_cond_t with their lock gone, reference
 * counts and a version taken with __atomic/__sync builtins, and statistics counters). */
#ifndef KV_H
#define KV_H

#include <pthread.h>
#include <stddef.h>

#define KV_KEYS 64

typedef unsigned int (*kv_hash_fn)(const char *key, size_t n);

extern volatile unsigned int kv_clock;   /* a timer thread's, written under no lock */
extern int kv_verbose;                   /* > 2: every lookup is logged (rare) */
extern kv_hash_fn kv_hash;
extern long kv_version;                  /* +1 per set, by compare-and-swap */

unsigned int kv_hash_sum(const char *key, size_t n);
unsigned int kv_hash_mul(const char *key, size_t n);
void kv_log_lookup(const char *key, unsigned int when);
void kv_log_start(void);
void kv_log_stop(void);
void kv_log_note(void);
int kv_log_drained(long ms);
long kv_log_lines(void);

int kv_get(const char *key, long *value);
void kv_set(const char *key, long value);
long kv_total(void);
long kv_refs(void);                      /* references held now (0 when no lookup runs) */

enum kv_op { KV_GET_HIT, KV_GET_MISS, KV_SET };
void kv_count(enum kv_op op);
long kv_counted(enum kv_op op);
void kv_note_peak(long n);
long kv_peak(void);
long kv_balance(void);                   /* 3 per set, -1 per hit */

#endif

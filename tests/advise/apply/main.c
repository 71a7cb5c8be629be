/* The driver: THREADS threads each run OPS operations on the store (sets of +1 and gets), count
 * them, note a log line every 100, and a timer thread moves the clock. At the end the store's
 * total and version must equal the sets, no reference may be held, the counters must match the
 * operations, and the logger (woken by the notes, drained before the stop) must have counted
 * every note and the stop's line. Usage: kvtest THREADS OPS [VERBOSE]. Prints "ok" and exits 0. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kv.h"

volatile unsigned int kv_clock;
static volatile int done;
static long ops;

static void *worker(void *arg)
{
    long me = (long)arg;
    char key[8];
    for (long i = 0; i < ops; i++) {
        snprintf(key, sizeof key, "k%ld", (me * 7 + i) % 40);
        if (i % 3 == 0) {
            kv_set(key, 1);
            kv_count(KV_SET);
        } else {
            long v;
            kv_count(kv_get(key, &v) ? KV_GET_HIT : KV_GET_MISS);
        }
        kv_note_peak(i);
        if (i % 100 == 0)
            kv_log_note();
    }
    return NULL;
}

static void *timer(void *arg)
{
    (void)arg;
    while (!done) {
        kv_clock = kv_clock + 1;
        usleep(100);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    ops = argc > 2 ? atol(argv[2]) : 20000;
    kv_verbose = argc > 3 ? atoi(argv[3]) : 0;
    if (n < 1 || n > 64 || ops < 1) {
        fprintf(stderr, "usage: kvtest THREADS(1-64) OPS [VERBOSE]\n");
        return 2;
    }
    kv_hash = n % 2 ? kv_hash_mul : kv_hash_sum;
    pthread_t t, th[64];
    kv_log_start();
    pthread_create(&t, NULL, timer, NULL);
    for (long i = 0; i < n; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    done = 1;
    pthread_join(t, NULL);
    int drained = kv_log_drained(60000);
    kv_log_stop();
    long sets = 0, notes = 0;
    for (long i = 0; i < ops; i++) {
        sets += i % 3 == 0;
        notes += i % 100 == 0;
    }
    sets *= n;
    long total = kv_total(), counted = kv_counted(KV_SET);
    long gets = kv_counted(KV_GET_HIT) + kv_counted(KV_GET_MISS);
    long version = __atomic_load_n(&kv_version, __ATOMIC_ACQUIRE);
    long balance = 3 * counted - kv_counted(KV_GET_HIT);
    if (total != sets || counted != sets || gets != (long)n * ops - sets ||
        kv_peak() != ops - 1 || !drained || kv_log_lines() != notes * n + 1 || version != sets ||
        kv_refs() != 0 || kv_balance() != balance) {
        printf("FAIL: total %ld sets %ld counted %ld gets %ld peak %ld drained %d lines %ld of %ld "
               "version %ld refs %ld balance %ld (want %ld)\n", total, sets, counted, gets,
               kv_peak(), drained, kv_log_lines(), notes * n + 1, version, kv_refs(), kv_balance(),
               balance);
        return 1;
    }
    printf("ok: %d threads, %ld operations\n", n, (long)n * ops);
    return 0;
}

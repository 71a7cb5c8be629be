/* Bounded buffer over libtmcondvar (transmem): producers and consumers wait inside their
 * transactions (tmcondvar_wait as the transaction's last action), signal inside transactions.
 * Checks that every item arrives exactly once. Usage: pc PRODUCERS CONSUMERS ITEMS_PER_PRODUCER CAP */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "tmcondvar.h"

static long buf[64];
static int head, count, cap;
static tmcondvar_t *not_empty, *not_full;
static long per;
static int nprod, ncons;
static long consumed_sum, consumed_n;
static int producers_done;

static void *producer(void *a)
{
    long id = (long)a;
    tmcondvar_thread_init();
    for (long i = 0; i < per; i++) {
        long v = id * per + i + 1;
        for (;;) {
            int done = 0;
            __transaction_atomic {
                if (count < cap) {
                    buf[(head + count) % 64] = v;
                    count++;
                    tmcondvar_signal(not_empty);
                    done = 1;
                } else
                    tmcondvar_wait(not_full);
            }
            if (done)
                break;
        }
    }
    __transaction_atomic {
        producers_done++;
        if (producers_done == nprod)
            tmcondvar_broadcast(not_empty);
    }
    return NULL;
}

static void *consumer(void *a)
{
    (void)a;
    tmcondvar_thread_init();
    for (;;) {
        long v = 0;
        int stop = 0;
        __transaction_atomic {
            if (count > 0) {
                v = buf[head];
                head = (head + 1) % 64;
                count--;
                consumed_sum += v;
                consumed_n++;
                tmcondvar_signal(not_full);
            } else if (producers_done == nprod)
                stop = 1;
            else
                tmcondvar_wait(not_empty);
        }
        if (stop)
            break;
    }
    /* wake the other consumers that may be waiting so they see producers_done */
    __transaction_atomic { tmcondvar_broadcast(not_empty); }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: pc PRODUCERS CONSUMERS ITEMS_PER_PRODUCER CAP(1-64)\n");
        return 2;
    }
    nprod = atoi(argv[1]);
    ncons = atoi(argv[2]);
    per = atol(argv[3]);
    cap = atoi(argv[4]);
    if (nprod < 1 || ncons < 1 || per < 1 || cap < 1 || cap > 64 || nprod + ncons > 64) {
        fprintf(stderr, "pc: bad arguments\n");
        return 2;
    }
    tmcondvar_thread_init();
    not_empty = tmcondvar_create();
    not_full = tmcondvar_create();
    pthread_t t[64];
    for (long i = 0; i < nprod; i++)
        pthread_create(&t[i], NULL, producer, (void *)i);
    for (long i = 0; i < ncons; i++)
        pthread_create(&t[nprod + i], NULL, consumer, NULL);
    for (int i = 0; i < nprod + ncons; i++)
        pthread_join(t[i], NULL);
    long n = nprod * per;
    long want = n * (n + 1) / 2;
    int ok = consumed_n == n && consumed_sum == want && count == 0;
    printf("%s consumed %ld of %ld, sum %ld want %ld\n", ok ? "PASS" : "FAIL", consumed_n, n,
           consumed_sum, want);
    return ok ? 0 : 1;
}

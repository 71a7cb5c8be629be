/* Threads move money between accounts; the total (balances plus fees) never changes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "acct.h"
#include "bank.h"

#define INITIAL 100000L

static int rounds;

static void *worker(void *arg)
{
    unsigned seed = (unsigned)(size_t)arg * 2654435761u + 1;
    int i;
    for (i = 0; i < rounds; i++) {
        int from = (int)(rand_r(&seed) % NACCOUNTS), to = (int)(rand_r(&seed) % NACCOUNTS);
        long amount = (long)(rand_r(&seed) % 5000);
        switch (i % 50) {
        case 0:
            bank_sweep(from, to);
            break;
        case 1:
        case 2:
            bank_move_rounded(from, to, acct_rounding(amount));
            break;
        default:
            bank_transfer(from, to, amount);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4, i;
    pthread_t t[64];
    rounds = argc > 2 ? atoi(argv[2]) : 20000;
    if (n < 1 || n > 64)
        return 2;
    bank_open(INITIAL);
    for (i = 0; i < n; i++)
        pthread_create(&t[i], NULL, worker, (void *)(size_t)(i + 1));
    for (i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    if (bank_total() != INITIAL * NACCOUNTS) {
        fprintf(stderr, "total %ld, expected %ld\n", bank_total(), INITIAL * NACCOUNTS);
        return 1;
    }
    printf("ok %ld\n", bank_total());
    return 0;
}

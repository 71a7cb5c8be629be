#include <pthread.h>

#include "acct.h"
#include "bank.h"

static pthread_mutex_t bank_lock = PTHREAD_MUTEX_INITIALIZER;
static long balance[NACCOUNTS];
static long fees;

void bank_open(long each)
{
    int i;
    for (i = 0; i < NACCOUNTS; i++)
        balance[i] = each;
}

/* Moves amount and charges the fee to the payer. */
void bank_transfer(int from, int to, long amount)
{
    pthread_mutex_lock(&bank_lock);
    long fee = acct_fee(amount);
    if (balance[from] >= amount + fee) {
        balance[from] -= amount + fee;
        balance[to] += amount;
        fees += fee;
    }
    pthread_mutex_unlock(&bank_lock);
}

/* Moves the rounded amount. */
void bank_move_rounded(int from, int to, long amount)
{
    pthread_mutex_lock(&bank_lock);
    long r = acct_round(amount);
    if (balance[from] >= r) {
        balance[from] -= r;
        balance[to] += r;
    }
    pthread_mutex_unlock(&bank_lock);
}

/* Moves everything and reports it when large. */
void bank_sweep(int from, int to)
{
    pthread_mutex_lock(&bank_lock);
    long all = from == to ? 0 : balance[from];
    balance[to] += all;
    balance[from] -= all;
    acct_audit(all);
    pthread_mutex_unlock(&bank_lock);
}

long bank_total(void)
{
    long sum;
    int i;
    pthread_mutex_lock(&bank_lock);
    sum = fees;
    for (i = 0; i < NACCOUNTS; i++)
        sum += balance[i];
    pthread_mutex_unlock(&bank_lock);
    return sum;
}

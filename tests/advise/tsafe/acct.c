#include <stdio.h>

#include "acct.h"

static long per_mille(long amount, long rate)
{
    return amount * rate / 1000;
}

long acct_fee(long amount)
{
    long fee = per_mille(amount, 3);
    return fee < 1 ? 1 : fee;
}

long acct_round(long amount)
{
    return amount - amount % 10;
}

long (*acct_rounding)(long) = acct_round;

void acct_audit(long amount)
{
    if (amount > 2000000) /* more than the bank holds: never */
        fprintf(stderr, "large amount %ld\n", amount);
}

/* A small bank (tests/advise/tsafe.sh): the account helpers live in acct.c and are called
 * from bank.c's critical sections. */
#ifndef ACCT_H
#define ACCT_H

/* A fee in cents: arithmetic only, through a helper of its own file. */
long acct_fee(long amount);
/* Rounds to whole units; bank.c also keeps a pointer to it. */
long acct_round(long amount);
/* Reports a large amount on stderr. */
void acct_audit(long amount);

extern long (*acct_rounding)(long);

#endif

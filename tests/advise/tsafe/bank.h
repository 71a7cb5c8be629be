#ifndef BANK_H
#define BANK_H

#define NACCOUNTS 16

void bank_open(long each);
void bank_transfer(int from, int to, long amount);
void bank_move_rounded(int from, int to, long amount);
void bank_sweep(int from, int to);
long bank_total(void);

#endif

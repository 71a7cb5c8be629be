/* tmkit/privatize.h — a transaction's promise not to privatize (included by tmkit.h).
 *
 *     __transaction_atomic {
 *         tm_no_privatization();      // this transaction makes nothing private
 *         stats->requests++;
 *         queue_push(q, item);        // the item stays shared
 *     }
 *
 * Privatization: a transaction unlinks shared data (takes an object off a list, sets the only
 * pointer to it to NULL), and after it commits the thread uses that data with plain code. GCC's
 * libitm and tmkit make that safe by default: a writer's commit waits until every transaction
 * that was running beside it has finished, since a doomed one could still write the data in
 * place or roll it back (docs/scaling.md). Under orec_eager the wait is only for those that
 * read a word the commit wrote (its readers mark the words they read), so writers of disjoint
 * data scale without the promise (2 threads 28.0M commits/s against 5.8M when the wait was for
 * every running attempt; bench/results/scaling); under orec_lazy it is for every transaction
 * running. The promise still saves the wait where others did read what the transaction
 * writes (a shared queue's ends, a statistics counter).
 *
 * tm_no_privatization() inside a transaction promises that, after it commits, this thread will
 * not touch with plain code (outside transactions) any memory that another transaction could
 * reach before the commit; the commit then returns without that wait. It covers the outermost
 * transaction running (all its attempts) and nothing after it; outside a transaction it does
 * nothing. A transaction that frees memory (free, delete inside it) still waits: freeing is
 * privatization for the allocator. Only algorithms that wait at all are affected (the orec
 * algorithms and adaptive's orec_eager mode; gl_wt and NOrec never wait). A broken promise is a
 * data race on the memory the program made private. On GCC's libitm (tmkit_* symbols absent)
 * the call does nothing. */
#ifndef TMKIT_PRIVATIZE_H
#define TMKIT_PRIVATIZE_H

#include "compat.h"

#ifdef __cplusplus
extern "C" {
#endif

void tmkit_no_privatization(void) __attribute__((weak, transaction_pure));

static inline __attribute__((transaction_pure, unused)) void tm_no_privatization(void)
{
    if (tmkit_no_privatization)
        tmkit_no_privatization();
}

#ifdef __cplusplus
}
#endif

#endif

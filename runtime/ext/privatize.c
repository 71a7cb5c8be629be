/* tm_no_privatization (include/tmkit/privatize.h): a transaction's promise that it makes nothing
 * private, so that its commit need not wait for the transactions running beside it.
 *
 * Privatization safety costs a writer of the orec algorithms one wait per commit for the
 * attempts that were running when it committed (core/serial.c; orec_eager waits only for those
 * that read a word it wrote, orec_lazy for all; why the wait cannot be avoided in general:
 * docs/scaling.md). A program knows what the runtime cannot: which of its transactions unlink
 * shared data to use it with plain code afterwards. Those that do not (counters, statistics,
 * queue operations whose items stay shared) may say so, and their commits return at once even
 * when other transactions read what they wrote, while the rest of the program keeps the
 * default.
 *
 * The promise covers the outermost transaction that is running (its id), every attempt of it,
 * and nothing after it. A transaction that frees memory (free, delete: freed at commit) privatizes
 * that memory for the allocator, whatever it promised: its commit still waits, since a doomed
 * attempt may still write or roll back words of the block in place. Outside a transaction the
 * call does nothing. Breaking the promise is a data race on the privatized memory, with what
 * that implies under write-through: a doomed transaction's writes or its rollback can land there.
 */
#include "ext.h"

TM_EXPORT void tmkit_no_privatization(void)
{
    tm_tx *tx = tm_cur;
    if (tx && tx->nesting) {
        tx->ext.nopriv = true;
        tx->ext.nopriv_id = tx->id;
    }
}

bool tm_promised_no_privatization(const tm_tx *tx)
{
    if (!tx->ext.nopriv || tx->ext.nopriv_id != tx->id)
        return false;
    for (size_t i = 0; i < tx->n_actions; i++)
        if (tx->actions[i].kind == TM_ACT_FREE_ON_COMMIT)
            return false;
    return true;
}

/* The two exclusive execution modes, in which a transaction runs alone (the single-thread bias
 * or the serial lock) whatever the algorithm:
 * `direct`      accesses go straight to memory; used while a transaction is serial-irrevocable
 *               (and for barriers called outside any transaction).
 * `serial_undo` the transaction runs alone under the serial lock but can still cancel: every
 *               write records the old bytes first (libitm calls this mode "serial").
 * Core's begin, commit and switch to irrevocable choose them (begin.c, txn.c), so they are core's,
 * not an algorithm's (dispatch.h).
 */
#include <string.h>

#include "tx.h"

static void direct_read(tm_tx *tx, void *dst, const void *src, size_t len)
{
    (void)tx;
    memcpy(dst, src, len);
}

static void direct_write(tm_tx *tx, void *dst, const void *src, size_t len)
{
    (void)tx;
    memcpy(dst, src, len);
}

static void undo_write(tm_tx *tx, void *dst, const void *src, size_t len)
{
    tm_undo_push(&tx->undo, dst, len);
    memcpy(dst, src, len);
}

const tm_dispatch tm_disp_direct = {
    .name = "serial-irrevocable",
    .mode = TM_MODE_DIRECT,
    .read = direct_read,
    .write = direct_write,
};

const tm_dispatch tm_disp_serial_undo = {
    .name = "serial",
    .mode = TM_MODE_SERIAL_UNDO,
    .read = direct_read,
    .write = undo_write,
};

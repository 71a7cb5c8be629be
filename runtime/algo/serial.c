/* Serial execution modes and the `serialirr` algorithm.
 *
 * `direct`      accesses go straight to memory; used while a transaction is serial-irrevocable
 *               (and for barriers called outside any transaction).
 * `serial_undo` the transaction runs alone under the serial lock but can still cancel: every
 *               write records the old bytes first (libitm calls this mode "serial").
 * The `serialirr` algorithm runs every transaction under the serial lock, on GCC's
 * uninstrumented code path whenever the transaction cannot cancel: one lock, as cheap as the
 * mutex it replaces, no concurrency.
 */
#include <string.h>

#include "algo.h"

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

const tm_algo tm_algo_serialirr = {
    .name = "serialirr",
    .summary = "every transaction alone under one lock, uninstrumented when it cannot cancel",
    .disp = NULL,
    .serial = true,
    .biased = true,
};

/* serialirr with the lock elided by hardware transactions where the CPU has Intel RTM
 * (core/htm.c): adaptive's htm mode alone, so that every test can run on that path. */
const tm_algo tm_algo_htm = {
    .name = "htm",
    .summary = "serialirr with the lock elided by hardware transactions (Intel RTM; serialirr "
               "without it)",
    .disp = NULL,
    .serial = true,
    .biased = true,
};

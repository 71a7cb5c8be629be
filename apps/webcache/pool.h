/* pool.h — the worker threads of one server process (pool.c). */
#ifndef WC_POOL_H
#define WC_POOL_H

#include "conn.h"

struct wc_pool;

/* Starts `threads` workers answering the connections pushed to them; `stopping` (read
 * atomically) tells them the server is shutting down (no more keep-alive). NULL on failure. */
struct wc_pool *wc_pool_start(const struct wc_ctx *ctx, int threads, const int *stopping);
/* Queues a connection that needs a worker (a complete request, or a sent response's cleanups);
 * the worker gives it back to its I/O thread (wc_io_handback). */
void wc_pool_push(struct wc_pool *p, struct wc_conn *c);
/* Stops and joins the workers (the queue must be empty: no connection is left). */
void wc_pool_stop(struct wc_pool *p);

#endif

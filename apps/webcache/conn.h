/* conn.h — serving one client connection (conn.c). */
#ifndef WC_CONN_H
#define WC_CONN_H

#include "handler.h"

/* Serves requests on the non-blocking socket fd until the client closes, a timeout, an error
 * that ends the connection, or shutdown (wake_fd becomes readable). Closes fd. */
void wc_conn_serve(const struct wc_ctx *ctx, int fd, int wake_fd);

#endif

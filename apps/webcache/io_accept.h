/* io_accept.h — accepting connections, and what io.c and io_accept.c share (not for others). */
#ifndef WC_IO_ACCEPT_H
#define WC_IO_ACCEPT_H

#include "io.h"

uint64_t wc_io_now(void); /* ms, CLOCK_MONOTONIC */
/* Accepts what the listening socket has: within the limits, a connection of this thread;
 * past them, a 503 and a close. Out of descriptors: accepting pauses for 100 ms. */
void wc_io_accept(struct wc_io *io);
/* (Re)registers the listening socket in the thread's epoll set (sets io->listening). */
void wc_io_listen(struct wc_io *io);
/* Makes an accepted connection this thread's: epoll, the first request's deadline. */
void wc_io_adopt(struct wc_io *io, struct wc_conn *c);
/* Closes the socket and frees the connection (after a worker released its response). */
void wc_io_close(struct wc_io *io, struct wc_conn *c);

#endif

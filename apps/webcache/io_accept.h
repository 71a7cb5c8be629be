/* io_accept.h — accepting connections, and what io.c, io_accept.c and io_timer.c share (not for
 * others). Functions that take the set's lock say so; the others want it held. */
#ifndef WC_IO_ACCEPT_H
#define WC_IO_ACCEPT_H

#include <stdint.h>

#include "io.h"

#define WC_IO_LISTEN_TAG UINT64_MAX      /* epoll data of the listening socket */
#define WC_IO_WAKE_TAG (UINT64_MAX - 1) /* and of the eventfd; a connection's: gen << 32 | fd */

uint64_t wc_io_now(void); /* ms, CLOCK_MONOTONIC */
/* Accepts what the listening socket has: within the limits, a connection of the set; past
 * them, a 503 and a close. Out of descriptors: accepting pauses for 100 ms. Takes the lock. */
void wc_io_accept(struct wc_io *io);
/* (Re)registers the listening socket in the epoll set (sets io->listening). */
void wc_io_listen(struct wc_io *io);
/* A worker's body (io.c). */
void *wc_io_loop(void *arg);

/* io_timer.c: puts c in timer list `which` (WC_T_*) with its deadline from now, unless it is
 * there already; takes it out of its list; the milliseconds to the next deadline (at most
 * 100: shutdown, /_stats and a paused accept are looked at that often). */
void wc_io_time(struct wc_io *io, struct wc_conn *c, int which);
void wc_io_untime(struct wc_io *io, struct wc_conn *c);
int wc_io_timeout(struct wc_io *io, uint64_t now);

#endif

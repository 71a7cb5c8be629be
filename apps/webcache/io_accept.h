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
/* The thread's body (io.c). */
void *wc_io_loop(void *arg);
extern char wc_io_listen_tag, wc_io_wake_tag;

/* io_timer.c: puts c in timer list `which` (WC_T_*) with its deadline from now, unless it is
 * there already; takes it out of its list; the milliseconds to the next deadline (at most
 * 100: hand-backs, /_stats and a paused accept are looked at that often). */
void wc_io_time(struct wc_io *io, struct wc_conn *c, int which);
void wc_io_untime(struct wc_io *io, struct wc_conn *c);
int wc_io_timeout(struct wc_io *io, uint64_t now);

#endif

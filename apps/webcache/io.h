/* io.h — the I/O threads of one server process (io.c) and what they share (struct wc_srv).
 *
 * Each I/O thread owns an epoll set: the listening socket (shared, EPOLLEXCLUSIVE), an eventfd
 * to wake it, and the connections it accepted, which stay its own until they close.
 */
#ifndef WC_IO_H
#define WC_IO_H

#include <pthread.h>

#include "clients.h"
#include "conn.h"
#include "pool.h"

enum { WC_T_NEW, WC_T_REQ, WC_T_IDLE, WC_T_SEND, WC_T_LINGER, WC_T_N }; /* timer lists */

struct wc_srv { /* one per server process */
    const struct wc_ctx *ctx;
    struct wc_pool *pool;
    struct wc_clients *clients;
    int listen_fd;
    unsigned max_conns;
    int conns;          /* open connections (atomic) */
    int stopping;       /* SIGTERM/SIGINT: accept nothing, close idle ones, no keep-alive */
    int aborting;       /* the shutdown timeout passed: close everything */
    int io_live;        /* I/O threads still running (atomic) */
};

struct wc_tlist {
    struct wc_conn *head, *tail;
    unsigned ms;        /* every connection in it waits this long from when it joined */
};

struct wc_io {
    struct wc_srv *srv;
    int index, epfd, evfd, listening;
    uint64_t resume_accept; /* ms: accepting paused (out of descriptors) until then */
    uint64_t published;     /* ms: the cache's counters were last copied for /_stats */
    unsigned nconns;        /* connections it owns, including those away at a worker */
    struct wc_tlist lists[WC_T_N];
    pthread_mutex_t mu;     /* guards back and every connection's io_wanted */
    struct wc_conn *back;   /* handed back by workers */
    pthread_t thread;
};

/* Sets the I/O thread up and starts it. 0, or -1. */
int wc_io_start(struct wc_io *io, struct wc_srv *srv, int index);
/* Makes it look at srv->stopping / srv->aborting now. */
void wc_io_wake(struct wc_io *io);
void wc_io_join(struct wc_io *io);

/* A worker gives a connection back to its I/O thread with what it needs next (enum wc_next). */
void wc_io_handback(struct wc_conn *c, int next);

#endif

/* io.h — the event loops of one server process (io.c) and what they share (struct wc_srv).
 *
 * A process has --epoll-sets epoll sets (struct wc_io) and --threads workers spread over them.
 * Every worker of a set waits in the same epoll_wait (leader/followers: the kernel hands each
 * event to one waiting thread); the thread that gets a connection's event holds the connection
 * while it reads, answers a complete request (the handler, the cache's critical sections) and
 * sends, then parks it again. A set holds the listening socket (EPOLLEXCLUSIVE), an eventfd to
 * wake it, and the connections accepted through it, which stay in it until they close.
 */
#ifndef WC_IO_H
#define WC_IO_H

#include <pthread.h>

#include "clients.h"
#include "conn.h"

enum { WC_T_NEW, WC_T_REQ, WC_T_IDLE, WC_T_SEND, WC_T_LINGER, WC_T_N }; /* timer lists */

struct wc_srv { /* one per server process */
    const struct wc_ctx *ctx;
    struct wc_clients *clients;
    int listen_fd;
    unsigned max_conns;
    int conns;          /* open connections (atomic) */
    int stopping;       /* SIGTERM/SIGINT: accept nothing, close idle ones, no keep-alive */
    int aborting;       /* the shutdown timeout passed: close everything */
    int io_live;        /* event-loop threads still running (atomic) */
};

struct wc_tlist {
    struct wc_conn *head, *tail;
    unsigned ms;        /* every connection in it waits this long from when it joined */
};

struct wc_io {
    struct wc_srv *srv;
    int index, epfd, evfd;
    pthread_mutex_t mu;     /* guards everything below and every connection's away, io_wanted,
                             * expired and timer-list fields: held for bookkeeping only, never
                             * across a socket call, the handler or epoll_wait */
    int listening;
    uint64_t resume_accept; /* ms: accepting paused (out of descriptors) until then */
    uint64_t published;     /* ms: the cache's counters were last copied for /_stats */
    unsigned nconns;        /* connections in the set, held ones included */
    uint32_t next_gen;      /* generation of the next connection (epoll data: gen << 32 | fd) */
    struct wc_conn **by_fd; /* the set's connections by descriptor (events are checked here) */
    unsigned nfd;
    struct wc_tlist lists[WC_T_N];
    int nthreads;
    pthread_t *threads;
};

/* Sets the epoll set up and starts `threads` workers on it. 0, or -1 (then none runs). */
int wc_io_start(struct wc_io *io, struct wc_srv *srv, int index, int threads);
/* Makes one of its workers look at srv->stopping / srv->aborting now (the others look within
 * 100 ms). */
void wc_io_wake(struct wc_io *io);
void wc_io_join(struct wc_io *io);

#endif

/* conn.h — one client connection and the protocol steps on it (conn.c).
 *
 * A connection sits in its epoll set (io.c) and is held by one worker at a time: the one that
 * took its event reads, answers and sends, then parks it again. Nothing in it is locked while
 * it is held, except the fields the set's lock guards (away, io_wanted, expired, timer list).
 */
#ifndef WC_CONN_H
#define WC_CONN_H

#include <stdint.h>
#include <sys/uio.h>

#include "handler.h"

struct wc_io;

enum wc_next {      /* what a connection needs after a step */
    WC_NEED_READ,   /* request bytes (none buffered, or a request not complete yet) */
    WC_NEED_WORKER, /* a complete request to answer, or a sent response's cleanups */
    WC_NEED_SEND,   /* the socket is full: the rest of a response waits for room */
    WC_NEED_LINGER, /* answered and shut for writing: drain its input a moment, then close */
    WC_NEED_CLOSE,  /* close now: peer gone, error */
};

struct wc_conn {
    int fd;
    uint32_t addr;                /* client IPv4 address, network order */
    struct wc_io *io;             /* the epoll set it belongs to */
    /* the set's bookkeeping (io.c), under its lock */
    uint32_t gen;                 /* tells its events from those of a closed descriptor's */
    struct wc_conn *prev, *next;  /* its timer list */
    int list;                     /* which one, or -1 */
    int expired;                  /* the list it timed out of while held, or -1 */
    uint64_t deadline;            /* ms, CLOCK_MONOTONIC */
    struct wc_conn *link;         /* in a worker's private list (expiry, shutdown) */
    int away;                     /* a worker holds it */
    int io_wanted;                /* the socket signalled while it was held */
    int next_step;                /* enum wc_next, while parked */
    /* input */
    char *buf;                    /* NULL while idle: an idle connection holds no buffer */
    size_t len, size;             /* bytes held; allocated (grows to wc_conn_cap) */
    struct wc_parser ps;
    struct wc_request rq;
    struct wc_body body;
    int phase;                    /* 0: head, 1: body, 2: complete */
    int started;                  /* bytes of this request came (its clock runs) */
    int more;                     /* the last read filled the buffer: the socket may hold more */
    unsigned served;              /* responses sent */
    /* output */
    struct wc_response resp;
    int responding, keep, parsed, head_only;
    struct iovec iov[2];
    int iovcnt;
    char head[1024];
};

struct wc_conn *wc_conn_new(int fd, uint32_t addr, struct wc_io *io);
void wc_conn_free(struct wc_conn *c); /* the socket must be closed already (fd -1) */

/* Parses what the buffer holds: the head, then the body (discarded). Sends "100 Continue"
 * when the head asks for it and no body byte came yet. Returns WC_PARSE_INCOMPLETE,
 * WC_PARSE_OK (a complete request), an error status to answer, or -1 (close). */
int wc_conn_parse(struct wc_conn *c, const struct wc_config *cfg);

/* Parses and reads until a request is complete, an error, or the socket has no
 * more for now (WC_PARSE_INCOMPLETE). -1: the peer closed or failed. Sets c->started when
 * bytes of a request came. */
int wc_conn_input(struct wc_conn *c, const struct wc_config *cfg);

/* Answers the error status st (no handler, no cache), sends what the socket takes and, if all
 * went, finishes the response (wc_conn_sent). Returns what the connection needs next.
 * Keep-alive is decided when the response's head is made, after the handler: none once
 * *ctx->stopping is set. */
int wc_conn_reply(struct wc_conn *c, const struct wc_ctx *ctx, int st);

/* Sends what the socket takes of the response. 1: all sent, 0: the socket is full, -1 error
 * (the response's cleanups have run). */
int wc_conn_send(struct wc_conn *c);

/* After the last byte of a response: runs its cleanups, then shuts the connection for writing
 * (WC_NEED_LINGER) or drops the request from the buffer for the next (WC_NEED_READ). */
int wc_conn_sent(struct wc_conn *c, const struct wc_config *cfg);

/* Answers the complete request (the handler) and the complete requests pipelined after it, or
 * finishes a response whose last bytes were sent later (its cleanups); with the socket closed
 * (fd -1) only runs a response's cleanups. Returns what the connection needs next. */
int wc_conn_work(struct wc_conn *c, const struct wc_ctx *ctx);

#endif

/* io.c — an I/O thread: the event loop that owns connections (Apache event-MPM style).
 *
 * Sockets are registered once, edge-triggered for input and output. A connection waiting for a
 * request is read as bytes come (wc_conn_input) until its head and body are complete, then
 * handed to the worker pool; a worker gives it back (wc_io_handback) with what it needs next:
 * more input, room to send the rest of a response, a linger before the close, or the close.
 * Workers never close a socket: closing and freeing happen here only. An event that comes while
 * a worker has the connection sets its `io_wanted`; the worker then wakes this thread.
 *
 * Deadlines are total, kept in five lists whose connections all wait the same time from when
 * they joined (so each list is in deadline order and a timer costs O(1)):
 *   NEW     --request-timeout from accept for the first request (none sent: closed quietly)
 *   REQ     --request-timeout from a request's first byte (408)
 *   IDLE    --keepalive-timeout between requests (closed quietly)
 *   SEND    --send-timeout for the rest of a response the socket did not take (closed)
 *   LINGER  1 s to drain input after an answer with Connection: close (closed)
 * Shutdown (srv->stopping): the listening socket is dropped, connections waiting for input or
 * lingering are closed, responses being answered or sent finish (without keep-alive); once
 * srv->aborting is set they are closed too. The thread ends when it owns no connection.
 */
#define _GNU_SOURCE
#include "io.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "io_accept.h"
#include "stats.h"

void wc_io_close(struct wc_io *io, struct wc_conn *c)
{
    wc_io_untime(io, c);
    if (c->fd >= 0) {
        /* out of the epoll set first: a posix_spawn running in a worker may hold a copy of
         * the descriptor for a moment, and epoll would report the socket until that closes */
        epoll_ctl(io->epfd, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
        c->fd = -1;
        wc_clients_del(io->srv->clients, c->addr);
        __atomic_fetch_sub(&io->srv->conns, 1, __ATOMIC_RELAXED);
    }
    if (c->resp.ncleanups) { /* a response's resources: released by a worker, then back here */
        c->away = 1;
        wc_pool_push(io->srv->pool, c);
        return;
    }
    wc_conn_free(c);
    io->nconns--;
}

static void wc__dispatch(struct wc_io *io, struct wc_conn *c, int next, int wanted);

/* Reads and parses what the socket has for a connection waiting for a request. */
static void wc__read(struct wc_io *io, struct wc_conn *c)
{
    const struct wc_ctx *ctx = io->srv->ctx;
    int had = c->started, st = wc_conn_input(c, ctx->cfg);
    if (st == WC_PARSE_INCOMPLETE) {
        if (!had && c->started && c->list == WC_T_IDLE)
            wc_io_time(io, c, WC_T_REQ); /* a new request's clock starts with its first byte */
    } else if (st < 0) {
        wc_io_close(io, c);
    } else if (st == WC_PARSE_OK) {
        wc__dispatch(io, c, WC_NEED_WORKER, 0);
    } else { /* an error status: answered here (no handler, no cache) */
        wc__dispatch(io, c, wc_conn_reply(c, ctx, st, 1), 0);
    }
}

/* Lingering: swallow what the client still sends (up to its deadline); close at its EOF. */
static void wc__drain(struct wc_io *io, struct wc_conn *c)
{
    char sink[4096];
    for (int i = 0; i < 64; i++) {
        ssize_t k = read(c->fd, sink, sizeof sink);
        if (k > 0)
            continue;
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        break;
    }
    wc_io_close(io, c); /* EOF, an error, or 256 KB swallowed at once */
}

static void wc__write(struct wc_io *io, struct wc_conn *c)
{
    int k = wc_conn_send(c);
    if (k < 0)
        wc_io_close(io, c);
    else if (k > 0 && c->resp.ncleanups)
        wc__dispatch(io, c, WC_NEED_WORKER, 0); /* cache references are released by workers */
    else if (k > 0)
        wc__dispatch(io, c, wc_conn_sent(c, io->srv->ctx->cfg), 0);
}

/* c is this thread's again, or still: go on with what it needs. `wanted`: the socket
 * signalled while a worker had it (or a read may have left bytes behind). */
static void wc__dispatch(struct wc_io *io, struct wc_conn *c, int next, int wanted)
{
    const struct wc_srv *s = io->srv;
    c->next_step = next;
    if (next == WC_NEED_READ && __atomic_load_n(&s->stopping, __ATOMIC_ACQUIRE))
        next = WC_NEED_CLOSE;
    switch (next) {
    case WC_NEED_READ:
        if (c->started) {
            wc_io_time(io, c, c->served ? WC_T_REQ : WC_T_NEW);
        } else {
            free(c->buf); /* idle: no buffer */
            c->buf = NULL;
            c->size = c->len = 0;
            wc_io_time(io, c, c->served ? WC_T_IDLE : WC_T_NEW);
        }
        if (wanted || c->more)
            wc__read(io, c);
        break;
    case WC_NEED_WORKER:
        wc_io_untime(io, c);
        c->away = 1;
        wc_pool_push(s->pool, c);
        break;
    case WC_NEED_SEND:
        wc_io_time(io, c, WC_T_SEND);
        if (wanted)
            wc__write(io, c);
        break;
    case WC_NEED_LINGER:
        wc_io_time(io, c, WC_T_LINGER);
        wc__drain(io, c);
        break;
    default:
        wc_io_close(io, c);
    }
}

void wc_io_handback(struct wc_conn *c, int next)
{
    struct wc_io *io = c->io;
    pthread_mutex_lock(&io->mu);
    c->next_step = next;
    c->link = io->back;
    io->back = c;
    int wake = c->io_wanted || next == WC_NEED_CLOSE ||
               __atomic_load_n(&io->srv->stopping, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&io->mu);
    if (wake)
        wc_io_wake(io);
}

static void wc__take_back(struct wc_io *io)
{
    pthread_mutex_lock(&io->mu);
    struct wc_conn *c = io->back;
    io->back = NULL;
    pthread_mutex_unlock(&io->mu);
    while (c) {
        struct wc_conn *nx = c->link;
        pthread_mutex_lock(&io->mu);
        int wanted = c->io_wanted;
        c->io_wanted = 0;
        pthread_mutex_unlock(&io->mu);
        c->link = NULL;
        c->away = 0;
        if (c->fd < 0) {
            wc_conn_free(c);
            io->nconns--;
        } else {
            wc__dispatch(io, c, c->next_step, wanted);
        }
        c = nx;
    }
}

static void wc__event(struct wc_io *io, struct wc_conn *c)
{
    if (c->away) {
        pthread_mutex_lock(&io->mu);
        c->io_wanted = 1;
        pthread_mutex_unlock(&io->mu);
    } else if (c->next_step == WC_NEED_READ) {
        wc__read(io, c);
    } else if (c->next_step == WC_NEED_SEND) {
        wc__write(io, c);
    } else if (c->next_step == WC_NEED_LINGER) {
        wc__drain(io, c);
    }
}

static void wc__expire(struct wc_io *io, uint64_t now)
{
    const struct wc_srv *s = io->srv;
    for (int l = 0; l < WC_T_N; l++) {
        struct wc_conn *c;
        while ((c = io->lists[l].head) && c->deadline <= now) {
            wc_io_untime(io, c);
            if ((l == WC_T_NEW && c->started) || l == WC_T_REQ) /* a request did not arrive */
                wc__dispatch(io, c, wc_conn_reply(c, s->ctx, 408, 1), 0);
            else
                wc_io_close(io, c);
        }
    }
}

/* Closes what shutdown does not wait for: all of it once aborting. */
static void wc__shed(struct wc_io *io, int aborting)
{
    if (io->listening) {
        epoll_ctl(io->epfd, EPOLL_CTL_DEL, io->srv->listen_fd, NULL);
        io->listening = 0;
    }
    for (int l = 0; l < WC_T_N; l++)
        if (l != WC_T_SEND || aborting)
            while (io->lists[l].head)
                wc_io_close(io, io->lists[l].head);
}

void *wc_io_loop(void *arg)
{
    struct wc_io *io = arg;
    struct wc_srv *s = io->srv;
    struct epoll_event ev[128];
    for (;;) {
        wc__take_back(io);
        int aborting = __atomic_load_n(&s->aborting, __ATOMIC_ACQUIRE);
        if (__atomic_load_n(&s->stopping, __ATOMIC_ACQUIRE)) {
            wc__shed(io, aborting);
            if (io->nconns == 0)
                break;
        }
        uint64_t now = wc_io_now();
        if (!io->listening && !s->stopping && now >= io->resume_accept)
            wc_io_listen(io);
        int n = epoll_wait(io->epfd, ev, 128, wc_io_timeout(io, now));
        for (int i = 0; i < n; i++) {
            void *p = ev[i].data.ptr;
            if (p == &wc_io_listen_tag) {
                wc_io_accept(io);
            } else if (p == &wc_io_wake_tag) {
                uint64_t v;
                if (read(io->evfd, &v, sizeof v) < 0) { /* EAGAIN: another wake took it */ }
            } else {
                wc__event(io, p);
            }
        }
        now = wc_io_now();
        wc__expire(io, now);
        if (io->index == 0 && s->ctx->cfg->procs > 1 && now - io->published >= 100) {
            wc_stats_publish(s->ctx->cache);
            io->published = now;
        }
    }
    __atomic_fetch_sub(&s->io_live, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* io.c — the workers' event loop over a shared epoll set (leader/followers).
 *
 * Every worker of a set waits in the set's epoll_wait; the kernel wakes one waiter per event.
 * The worker that takes a connection's event holds it (`away`, under the set's lock) and, with
 * no lock held, reads what the socket has, answers a complete request there and then (the
 * handler and the cache sections: no hand-off to another thread, so a request costs one
 * wake-up), sends what the socket takes and parks the connection again with what it waits for
 * next. Sockets are registered once, edge-triggered: an event that comes while another worker
 * holds the connection only sets its `io_wanted`, and the holder goes round once more before
 * it parks. Events carry the connection's generation and descriptor, looked up in `by_fd`
 * under the lock, so an event still in another worker's batch for a connection just closed
 * (or for a new one on the same descriptor) is recognized and dropped, never dereferenced.
 *
 * Deadlines are total, kept in five lists whose connections all wait the same time from when
 * they joined (so each list is in deadline order and a timer costs O(1)):
 *   NEW     --request-timeout from accept for the first request (none sent: closed quietly)
 *   REQ     --request-timeout from a request's first byte (408)
 *   IDLE    --keepalive-timeout between requests (closed quietly)
 *   SEND    --send-timeout for the rest of a response the socket did not take (closed)
 *   LINGER  1 s to drain input after an answer with Connection: close (closed)
 * A held connection stays in its list, so reading a request in pieces does not restart its
 * clock; one that expires while held is taken out and marked `expired`, and its holder acts on
 * it when it parks (unless the connection has moved on to wait for something else).
 * Shutdown (srv->stopping; server.c has shut the listening socket, so connects are refused):
 * each set takes the listening socket out of its epoll set, connections waiting for input or
 * lingering are closed, responses being answered or sent finish (without keep-alive); once
 * srv->aborting is set they are closed too. A worker ends when its set holds no connection.
 */
#define _GNU_SOURCE
#include "io.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "io_accept.h"
#include "stats.h"

/* Closes a connection this worker holds: socket, its response's cleanups, then the memory. */
static void wc__close(struct wc_io *io, struct wc_conn *c)
{
    pthread_mutex_lock(&io->mu);
    wc_io_untime(io, c);
    io->by_fd[c->fd] = NULL; /* first: a late event for this descriptor finds nothing */
    pthread_mutex_unlock(&io->mu);
    /* out of the epoll set before the close: a posix_spawn running in a worker may hold a
     * copy of the descriptor for a moment, and epoll would report the socket until that closes */
    epoll_ctl(io->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
    wc_clients_del(io->srv->clients, c->addr);
    __atomic_fetch_sub(&io->srv->conns, 1, __ATOMIC_RELAXED);
    if (c->responding) /* cache references of an unfinished response */
        wc_conn_work(c, io->srv->ctx);
    wc_conn_free(c);
    pthread_mutex_lock(&io->mu);
    int last = --io->nconns == 0 && __atomic_load_n(&io->srv->stopping, __ATOMIC_ACQUIRE);
    pthread_mutex_unlock(&io->mu);
    if (last)
        wc_io_wake(io); /* a worker waiting for the set to empty */
}

/* Lingering: swallow what the client still sends (up to its deadline); close at its EOF. */
static int wc__drain(struct wc_conn *c)
{
    char sink[4096];
    for (int i = 0; i < 64; i++) {
        ssize_t k = read(c->fd, sink, sizeof sink);
        if (k > 0 || (k < 0 && errno == EINTR))
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return WC_NEED_LINGER;
        break;
    }
    return WC_NEED_CLOSE; /* EOF, an error, or 256 KB swallowed at once */
}

/* An answer that ends with Connection: close drains the input once at once (most clients
 * close as soon as they read it), then waits for the rest or the deadline. */
static int wc__linger_now(struct wc_conn *c, int next)
{
    return next == WC_NEED_LINGER ? wc__drain(c) : next;
}

/* Does what a held connection waits for, now that the socket may have something for it.
 * Sets *answered when a response was started (its timer list starts afresh). */
static int wc__step(struct wc_io *io, struct wc_conn *c, int next, int *answered)
{
    const struct wc_ctx *ctx = io->srv->ctx;
    switch (next) {
    case WC_NEED_READ: {
        int st = wc_conn_input(c, ctx->cfg);
        if (st == WC_PARSE_INCOMPLETE)
            return WC_NEED_READ;
        if (st < 0)
            return WC_NEED_CLOSE;
        *answered = 1;
        return wc__linger_now(c, st == WC_PARSE_OK ? wc_conn_work(c, ctx)
                                                   : wc_conn_reply(c, ctx, st));
    }
    case WC_NEED_SEND: {
        int k = wc_conn_send(c);
        if (k <= 0)
            return k < 0 ? WC_NEED_CLOSE : WC_NEED_SEND;
    } /* all sent: its cleanups, then the requests pipelined after it */
        /* fall through */
    case WC_NEED_WORKER:
        *answered = 1;
        return wc__linger_now(c, wc_conn_work(c, ctx));
    case WC_NEED_LINGER:
        return wc__drain(c);
    default:
        return WC_NEED_CLOSE;
    }
}

/* The timer list a connection waiting for `next` belongs in. */
static int wc__list_for(const struct wc_conn *c, int next)
{
    if (next == WC_NEED_SEND)
        return WC_T_SEND;
    if (next == WC_NEED_LINGER)
        return WC_T_LINGER;
    if (!c->served)
        return WC_T_NEW;
    return c->started ? WC_T_REQ : WC_T_IDLE;
}

/* A held connection: does what it needs (`go`: the socket signalled) until it must wait, then
 * parks it, or closes it. */
static void wc__run(struct wc_io *io, struct wc_conn *c, int next, int go)
{
    const struct wc_srv *s = io->srv;
    int answered = 0;
    for (;;) {
        if (go)
            next = wc__step(io, c, next, &answered);
        if (next == WC_NEED_READ && !c->started && c->buf) {
            free(c->buf); /* idle: no buffer */
            c->buf = NULL;
            c->size = c->len = 0;
        }
        int list = wc__list_for(c, next);
        pthread_mutex_lock(&io->mu);
        if (__atomic_load_n(&s->stopping, __ATOMIC_ACQUIRE) &&
            (next == WC_NEED_READ || next == WC_NEED_LINGER ||
             __atomic_load_n(&s->aborting, __ATOMIC_ACQUIRE)))
            next = WC_NEED_CLOSE;
        if (next == WC_NEED_CLOSE) {
            pthread_mutex_unlock(&io->mu);
            wc__close(io, c);
            return;
        }
        if (answered) { /* it waits for something new: a fresh deadline */
            wc_io_untime(io, c);
            c->expired = -1;
            answered = 0;
        }
        if (c->expired == list) { /* its deadline passed while it was held */
            c->expired = -1;
            pthread_mutex_unlock(&io->mu);
            go = 0;
            next = WC_NEED_CLOSE;
            if (list == WC_T_REQ || (list == WC_T_NEW && c->started)) { /* a request did not arrive */
                next = wc__linger_now(c, wc_conn_reply(c, s->ctx, 408));
                answered = 1;
            }
            continue;
        }
        c->expired = -1;
        if (c->io_wanted || next == WC_NEED_WORKER || (next == WC_NEED_READ && c->more)) {
            c->io_wanted = 0; /* more to do before it can wait: round again */
            pthread_mutex_unlock(&io->mu);
            go = 1;
            continue;
        }
        wc_io_time(io, c, list); /* keeps the deadline if it is in that list already */
        c->next_step = next;
        c->away = 0;
        pthread_mutex_unlock(&io->mu);
        return;
    }
}

/* An event for the connection (gen, fd): runs it if no other worker holds it. */
static void wc__event(struct wc_io *io, uint64_t data)
{
    int fd = (int)(uint32_t)data;
    pthread_mutex_lock(&io->mu);
    struct wc_conn *c = (unsigned)fd < io->nfd ? io->by_fd[fd] : NULL;
    if (!c || c->gen != (uint32_t)(data >> 32)) {
        c = NULL; /* closed since the event was queued */
    } else if (c->away) {
        c->io_wanted = 1;
        c = NULL;
    } else {
        c->away = 1;
    }
    pthread_mutex_unlock(&io->mu);
    if (c)
        wc__run(io, c, c->next_step, 1);
}

/* Takes a parked connection for this worker onto a private list (the set's lock held). */
static void wc__collect(struct wc_conn *c, struct wc_conn **list)
{
    c->away = 1;
    c->link = *list;
    *list = c;
}

/* Takes the connections whose deadline passed: held ones are marked for their holder, parked
 * ones are taken here (408 or close). */
static void wc__expire(struct wc_io *io, uint64_t now)
{
    struct wc_conn *due = NULL;
    pthread_mutex_lock(&io->mu);
    for (int l = 0; l < WC_T_N; l++) {
        struct wc_conn *c;
        while ((c = io->lists[l].head) && c->deadline <= now) {
            wc_io_untime(io, c);
            c->expired = l;
            if (!c->away)
                wc__collect(c, &due);
        }
    }
    pthread_mutex_unlock(&io->mu);
    while (due) {
        struct wc_conn *c = due;
        due = c->link;
        wc__run(io, c, c->next_step, 0); /* sees c->expired == its list */
    }
}

/* Shutdown: closes the parked connections shutdown does not wait for (all once aborting). */
static void wc__shed(struct wc_io *io, int aborting)
{
    struct wc_conn *drop = NULL;
    pthread_mutex_lock(&io->mu);
    if (io->listening) {
        epoll_ctl(io->epfd, EPOLL_CTL_DEL, io->srv->listen_fd, NULL);
        io->listening = 0;
    }
    for (int l = 0; l < WC_T_N; l++) {
        if (l == WC_T_SEND && !aborting)
            continue;
        for (struct wc_conn *c = io->lists[l].head; c; c = c->next)
            if (!c->away)
                wc__collect(c, &drop);
    }
    pthread_mutex_unlock(&io->mu);
    while (drop) {
        struct wc_conn *c = drop;
        drop = c->link;
        wc__close(io, c);
    }
}

void *wc_io_loop(void *arg)
{
    struct wc_io *io = arg;
    struct wc_srv *s = io->srv;
    /* One event at a time: a worker that took several would answer them one after another
     * (a page render takes milliseconds) while the others sat idle in epoll_wait. */
    struct epoll_event ev[1];
    for (;;) {
        if (__atomic_load_n(&s->stopping, __ATOMIC_ACQUIRE)) {
            wc__shed(io, __atomic_load_n(&s->aborting, __ATOMIC_ACQUIRE));
            pthread_mutex_lock(&io->mu);
            int empty = io->nconns == 0;
            pthread_mutex_unlock(&io->mu);
            if (empty)
                break;
        }
        uint64_t now = wc_io_now();
        pthread_mutex_lock(&io->mu);
        if (!io->listening && !s->stopping && now >= io->resume_accept)
            wc_io_listen(io);
        int timeout = wc_io_timeout(io, now);
        pthread_mutex_unlock(&io->mu);
        int n = epoll_wait(io->epfd, ev, 1, timeout);
        for (int i = 0; i < n; i++) {
            if (ev[i].data.u64 == WC_IO_LISTEN_TAG) {
                wc_io_accept(io);
            } else if (ev[i].data.u64 == WC_IO_WAKE_TAG) {
                uint64_t v;
                if (read(io->evfd, &v, sizeof v) < 0) { /* EAGAIN: another wake took it */ }
            } else {
                wc__event(io, ev[i].data.u64);
            }
        }
        now = wc_io_now();
        wc__expire(io, now);
        if (io->index == 0 && s->ctx->cfg->procs > 1) {
            pthread_mutex_lock(&io->mu);
            int due = now - io->published >= 100;
            if (due)
                io->published = now;
            pthread_mutex_unlock(&io->mu);
            if (due)
                wc_stats_publish(s->ctx->cache);
        }
    }
    wc_io_wake(io); /* the next worker of the set sees it empty too */
    __atomic_fetch_sub(&s->io_live, 1, __ATOMIC_RELEASE);
    return NULL;
}

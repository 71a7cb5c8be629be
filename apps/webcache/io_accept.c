/* io_accept.c — setting an epoll set and its workers up, and taking new connections within --max-connections
 * (per process) and --max-connections-per-client (per IPv4 address); past either, the client gets
 * "503 Service Unavailable" with Connection: close and the socket is closed at once (what it
 * sent is read first, so the close is not a reset that could destroy the answer).
 */
#define _GNU_SOURCE
#include "io_accept.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "stats.h"

static void wc__refuse(int fd)
{
    struct wc_response r;
    char msg[1024], sink[4096];
    memset(&r, 0, sizeof r);
    wc_response_error(&r, 503);
    size_t h = wc_http_format_head(&r, 0, msg, sizeof msg - sizeof r.page);
    memcpy(msg + h, r.body, r.body_len);
    if (read(fd, sink, sizeof sink) < 0) { /* nothing sent yet */ }
    WC_STATS_INC(requests);
    if (send(fd, msg, h + r.body_len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) { /* gone */ }
    shutdown(fd, SHUT_WR);
    close(fd);
}

static int wc__adopt(struct wc_io *io, struct wc_conn *c);

void wc_io_accept(struct wc_io *io)
{
    struct wc_srv *s = io->srv;
    for (int i = 0; i < 64; i++) {
        struct sockaddr_in a;
        socklen_t al = sizeof a;
        int fd = accept4(s->listen_fd, (struct sockaddr *)&a, &al, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                pthread_mutex_lock(&io->mu);
                if (io->listening)
                    epoll_ctl(io->epfd, EPOLL_CTL_DEL, s->listen_fd, NULL);
                io->listening = 0;
                io->resume_accept = wc_io_now() + 100;
                pthread_mutex_unlock(&io->mu);
            }
            return; /* EAGAIN: none left (or another thread or process took it) */
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        uint32_t addr = a.sin_family == AF_INET ? a.sin_addr.s_addr : 0;
        if ((unsigned)__atomic_add_fetch(&s->conns, 1, __ATOMIC_RELAXED) > s->max_conns) {
            __atomic_fetch_sub(&s->conns, 1, __ATOMIC_RELAXED);
            wc__refuse(fd);
            continue;
        }
        if (!wc_clients_add(s->clients, addr)) {
            __atomic_fetch_sub(&s->conns, 1, __ATOMIC_RELAXED);
            wc__refuse(fd);
            continue;
        }
        struct wc_conn *c = wc_conn_new(fd, addr, io);
        if (!c) {
            wc_clients_del(s->clients, addr);
            __atomic_fetch_sub(&s->conns, 1, __ATOMIC_RELAXED);
            close(fd);
            continue;
        }
        if (!wc__adopt(io, c)) {
            wc_clients_del(s->clients, addr);
            __atomic_fetch_sub(&s->conns, 1, __ATOMIC_RELAXED);
            close(fd);
            wc_conn_free(c);
        }
    }
}

/* Room in by_fd for descriptor fd (lock held). */
static int wc__room(struct wc_io *io, int fd)
{
    if ((unsigned)fd < io->nfd)
        return 1;
    unsigned n = io->nfd ? io->nfd : 256;
    while (n <= (unsigned)fd)
        n *= 2;
    struct wc_conn **t = realloc(io->by_fd, n * sizeof *t);
    if (!t)
        return 0;
    memset(t + io->nfd, 0, (n - io->nfd) * sizeof *t);
    io->by_fd = t;
    io->nfd = n;
    return 1;
}

/* Puts an accepted connection in the set, waiting for its first request (parked: any worker
 * may take its first event as soon as the lock is released). 0: out of memory or epoll. */
static int wc__adopt(struct wc_io *io, struct wc_conn *c)
{
    pthread_mutex_lock(&io->mu);
    int ok = wc__room(io, c->fd);
    if (ok) {
        c->gen = io->next_gen++;
        c->expired = -1;
        c->next_step = WC_NEED_READ;
        struct epoll_event e = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
                                .data.u64 = (uint64_t)c->gen << 32 | (uint32_t)c->fd};
        io->by_fd[c->fd] = c;
        ok = epoll_ctl(io->epfd, EPOLL_CTL_ADD, c->fd, &e) == 0;
        if (ok) {
            io->nconns++;
            wc_io_time(io, c, WC_T_NEW);
        } else {
            io->by_fd[c->fd] = NULL;
        }
    }
    pthread_mutex_unlock(&io->mu);
    return ok;
}

void wc_io_listen(struct wc_io *io)
{
    struct epoll_event e = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.u64 = WC_IO_LISTEN_TAG};
    io->listening = epoll_ctl(io->epfd, EPOLL_CTL_ADD, io->srv->listen_fd, &e) == 0;
}

int wc_io_start(struct wc_io *io, struct wc_srv *srv, int index, int threads)
{
    const struct wc_config *cfg = srv->ctx->cfg;
    io->srv = srv;
    io->index = index;
    unsigned ms[WC_T_N] = {cfg->request_timeout_ms, cfg->request_timeout_ms, cfg->keepalive_ms,
                           cfg->send_timeout_ms, 1000};
    for (int l = 0; l < WC_T_N; l++)
        io->lists[l].ms = ms[l];
    pthread_mutex_init(&io->mu, NULL);
    io->epfd = epoll_create1(EPOLL_CLOEXEC);
    io->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    io->threads = calloc((size_t)threads, sizeof *io->threads);
    struct epoll_event e = {.events = EPOLLIN, .data.u64 = WC_IO_WAKE_TAG};
    if (!io->threads || io->epfd < 0 || io->evfd < 0 ||
        epoll_ctl(io->epfd, EPOLL_CTL_ADD, io->evfd, &e) != 0)
        return -1;
    wc_io_listen(io);
    if (!io->listening)
        return -1;
    for (; io->nthreads < threads; io->nthreads++) {
        __atomic_fetch_add(&srv->io_live, 1, __ATOMIC_RELEASE);
        if (pthread_create(&io->threads[io->nthreads], NULL, wc_io_loop, io) != 0) {
            __atomic_fetch_sub(&srv->io_live, 1, __ATOMIC_RELEASE);
            return -1; /* the caller stops and joins the ones started */
        }
    }
    return 0;
}

void wc_io_wake(struct wc_io *io)
{
    uint64_t one = 1;
    if (write(io->evfd, &one, sizeof one) < 0) { /* the counter is saturated: awake anyway */ }
}

void wc_io_join(struct wc_io *io)
{
    for (int i = 0; i < io->nthreads; i++)
        pthread_join(io->threads[i], NULL);
    if (io->epfd >= 0)
        close(io->epfd);
    if (io->evfd >= 0)
        close(io->evfd);
    free(io->threads);
    free(io->by_fd);
    pthread_mutex_destroy(&io->mu);
}

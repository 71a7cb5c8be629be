/* io_accept.c — setting an I/O thread up, and taking new connections within --max-connections
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
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "stats.h"

char wc_io_listen_tag, wc_io_wake_tag; /* epoll data of the listening socket, the eventfd */

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

void wc_io_accept(struct wc_io *io)
{
    struct wc_srv *s = io->srv;
    for (int i = 0; i < 64; i++) {
        struct sockaddr_in a;
        socklen_t al = sizeof a;
        int fd = accept4(s->listen_fd, (struct sockaddr *)&a, &al, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                epoll_ctl(io->epfd, EPOLL_CTL_DEL, s->listen_fd, NULL);
                io->listening = 0;
                io->resume_accept = wc_io_now() + 100;
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
        wc_io_adopt(io, c);
    }
}

void wc_io_adopt(struct wc_io *io, struct wc_conn *c)
{
    struct epoll_event e = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = c};
    io->nconns++;
    c->next_step = WC_NEED_READ;
    wc_io_time(io, c, WC_T_NEW);
    if (epoll_ctl(io->epfd, EPOLL_CTL_ADD, c->fd, &e) != 0)
        wc_io_close(io, c);
}

void wc_io_listen(struct wc_io *io)
{
    struct epoll_event e = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = &wc_io_listen_tag};
    io->listening = epoll_ctl(io->epfd, EPOLL_CTL_ADD, io->srv->listen_fd, &e) == 0;
}

int wc_io_start(struct wc_io *io, struct wc_srv *srv, int index)
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
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = &wc_io_wake_tag};
    if (io->epfd < 0 || io->evfd < 0 || epoll_ctl(io->epfd, EPOLL_CTL_ADD, io->evfd, &e) != 0)
        return -1;
    wc_io_listen(io);
    if (!io->listening)
        return -1;
    __atomic_fetch_add(&srv->io_live, 1, __ATOMIC_RELEASE);
    if (pthread_create(&io->thread, NULL, wc_io_loop, io) != 0) {
        __atomic_fetch_sub(&srv->io_live, 1, __ATOMIC_RELEASE);
        return -1;
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
    pthread_join(io->thread, NULL);
    close(io->epfd);
    close(io->evfd);
    pthread_mutex_destroy(&io->mu);
}

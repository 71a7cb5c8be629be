/* kv_conn.c — the listener and the worker threads.
 *
 * The listener thread accepts connections (refusing those past -c with memcached's
 * "ERROR Too many open connections"), and hands each to a worker, round robin, by adding it to
 * that worker's epoll set; from then on only that worker touches it. Workers run a level-
 * triggered epoll loop: read what is there, let the protocol consume as many complete commands
 * as the input holds, send what it can, and wait for EPOLLOUT when the socket is full. A
 * connection with more than KV_WBUF_HIGH bytes of unsent replies is not read until they drain,
 * so a client that pipelines gets without reading cannot grow the server's memory without
 * bound. A client that disconnects mid-command loses the command (an item being filled is
 * released, never linked).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kv_conn.h"

#define KV_READ_CHUNK 65536

struct kv_worker {
    pthread_t thread;
    int epfd;
    struct kv_tstats *stats;
};

static struct kv_worker *kv_workers;
static int kv_open_conns; /* atomic: for the -c limit */
int64_t kv_started;

static void kv_grow(char **buf, size_t *cap, size_t need)
{
    size_t n = *cap ? *cap : 4096;
    while (n < need)
        n *= 2;
    char *p = realloc(*buf, n);
    if (!p)
        abort();
    *buf = p;
    *cap = n;
}

void kv_out(struct kv_conn *c, const void *data, size_t n)
{
    if (c->wpos == c->wlen)
        c->wpos = c->wlen = 0;
    if (c->wlen + n > c->wcap)
        kv_grow(&c->wbuf, &c->wcap, c->wlen + n);
    memcpy(c->wbuf + c->wlen, data, n);
    c->wlen += n;
}

void kv_outs(struct kv_conn *c, const char *s) { kv_out(c, s, strlen(s)); }

void kv_reply(struct kv_conn *c, const char *s)
{
    if (c->noreply)
        return;
    kv_outs(c, s);
    kv_out(c, "\r\n", 2);
}

void kv_consume(struct kv_conn *c, size_t n)
{
    c->rpos += n;
    c->rlen -= n;
    if (c->rlen == 0)
        c->rpos = 0;
}

/* Runs the protocol over the buffered input. */
static void kv_process(struct kv_conn *c)
{
    while (!c->closing && c->wlen - c->wpos < KV_WBUF_HIGH) {
        if (c->swallow) {
            size_t n = c->swallow < c->rlen ? c->swallow : c->rlen;
            if (n == 0)
                break;
            kv_consume(c, n);
            c->swallow -= n;
            if (!c->swallow && c->swallow_reply) {
                kv_outs(c, c->swallow_reply);
                c->swallow_reply = NULL;
            }
            continue;
        }
        if (c->item) {
            if (!kv_text_value(c))
                break;
            continue;
        }
        if (c->rlen == 0)
            break;
        if (c->proto == KV_PROTO_NONE)
            c->proto = (unsigned char)c->rbuf[c->rpos] == 0x80 ? KV_PROTO_BINARY : KV_PROTO_TEXT;
        int more = c->proto == KV_PROTO_TEXT ? kv_text_step(c) : kv_binary_step(c);
        if (!more)
            break;
    }
}

/* 1: read something or nothing to read, 0: the peer closed, -1: the socket failed. */
static int kv_read(struct kv_conn *c)
{
    if (c->rpos && c->rpos + c->rlen + KV_READ_CHUNK > c->rcap) {
        memmove(c->rbuf, c->rbuf + c->rpos, c->rlen);
        c->rpos = 0;
    }
    if (c->rpos + c->rlen + KV_READ_CHUNK > c->rcap)
        kv_grow(&c->rbuf, &c->rcap, c->rpos + c->rlen + KV_READ_CHUNK);
    ssize_t n = recv(c->fd, c->rbuf + c->rpos + c->rlen, KV_READ_CHUNK, 0);
    if (n > 0) {
        c->rlen += (size_t)n;
        kv_tstat_add(c->stats, KV_TS_bytes_read, (uint64_t)n);
        return 1;
    }
    if (n == 0)
        return 0;
    return errno == EAGAIN || errno == EINTR ? 1 : -1;
}

/* 0: the socket failed. */
static int kv_flush_out(struct kv_conn *c)
{
    while (c->wpos < c->wlen) {
        ssize_t n = send(c->fd, c->wbuf + c->wpos, c->wlen - c->wpos, MSG_NOSIGNAL);
        if (n < 0)
            return errno == EAGAIN || errno == EINTR;
        kv_tstat_add(c->stats, KV_TS_bytes_written, (uint64_t)n);
        c->wpos += (size_t)n;
    }
    c->wpos = c->wlen = 0;
    if (c->wcap > (1u << 20)) { /* give back a buffer a big reply grew */
        free(c->wbuf);
        c->wbuf = NULL;
        c->wcap = 0;
    }
    return 1;
}

static void kv_close(struct kv_conn *c)
{
    KV_LOG(2, "<%d connection closed.\n", c->fd);
    if (c->item)
        kv_release(c->item);
    close(c->fd);
    free(c->rbuf);
    free(c->wbuf);
    free(c);
    __atomic_fetch_sub(&kv_open_conns, 1, __ATOMIC_RELAXED);
    KV_STAT_ADD(curr_connections, -1);
}

static void kv_handle(struct kv_worker *w, struct kv_conn *c, unsigned ev)
{
    int r = (ev & (EPOLLIN | EPOLLHUP | EPOLLERR)) ? kv_read(c) : 1;
    if (r >= 0) /* at end of input, still answer the complete commands received */
        kv_process(c);
    if (r < 0 || !kv_flush_out(c) || r == 0 || (c->closing && c->wpos == c->wlen)) {
        kv_close(c);
        return;
    }
    unsigned want = c->wlen - c->wpos >= KV_WBUF_HIGH ? 0u : EPOLLIN;
    if (c->wpos < c->wlen)
        want |= EPOLLOUT;
    if (want != c->events) {
        struct epoll_event e = {.events = want, .data.ptr = c};
        epoll_ctl(w->epfd, EPOLL_CTL_MOD, c->fd, &e);
        c->events = want;
    }
}

static void *kv_worker_main(void *arg)
{
    struct kv_worker *w = arg;
    struct epoll_event evs[64];
    for (;;) {
        int n = epoll_wait(w->epfd, evs, 64, -1);
        for (int i = 0; i < n; i++)
            kv_handle(w, evs[i].data.ptr, evs[i].events);
    }
    return NULL;
}

static int kv_listen(void)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)kv_settings.port)};
    if (inet_pton(AF_INET, kv_settings.addr, &sa.sin_addr) != 1) {
        fprintf(stderr, "kvcache: -l %s: not an IPv4 address\n", kv_settings.addr);
        exit(1);
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 1024) < 0) {
        fprintf(stderr, "kvcache: cannot listen on %s:%d: %s\n", kv_settings.addr,
                kv_settings.port, strerror(errno));
        exit(1);
    }
    return fd;
}

static void kv_accept_loop(int lfd)
{
    static const char busy[] = "ERROR Too many open connections\r\n";
    for (unsigned next = 0;; next++) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE)
                usleep(10000);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (__atomic_add_fetch(&kv_open_conns, 1, __ATOMIC_RELAXED) > kv_settings.maxconns) {
            __atomic_fetch_sub(&kv_open_conns, 1, __ATOMIC_RELAXED);
            ssize_t r = send(fd, busy, sizeof busy - 1, MSG_NOSIGNAL);
            (void)r;
            close(fd);
            KV_STAT_ADD(rejected_connections, 1);
            continue;
        }
        struct kv_conn *c = calloc(1, sizeof *c);
        if (!c)
            abort();
        struct kv_worker *w = &kv_workers[next % (unsigned)kv_settings.threads];
        c->fd = fd;
        c->stats = w->stats;
        c->events = EPOLLIN;
        KV_STAT_ADD(curr_connections, 1);
        KV_STAT_ADD(total_connections, 1);
        KV_LOG(2, "<%d new client connection\n", fd);
        struct epoll_event e = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &e) < 0)
            kv_close(c);
    }
}

static void *kv_listener_main(void *arg)
{
    kv_accept_loop((int)(intptr_t)arg);
    return NULL;
}

int kv_server_run(void)
{
    int lfd = kv_listen();
    kv_started = kv_now();
    kv_workers = calloc((size_t)kv_settings.threads, sizeof *kv_workers);
    for (int i = 0; i < kv_settings.threads; i++) {
        kv_workers[i].epfd = epoll_create1(EPOLL_CLOEXEC);
        kv_workers[i].stats = kv_tstats_new();
        if (kv_workers[i].epfd < 0 ||
            pthread_create(&kv_workers[i].thread, NULL, kv_worker_main, &kv_workers[i]) != 0) {
            fprintf(stderr, "kvcache: cannot start worker %d\n", i);
            exit(1);
        }
    }
    kv_assoc_start_maintainer();
    pthread_t t;
    if (pthread_create(&t, NULL, kv_listener_main, (void *)(intptr_t)lfd) != 0) {
        fprintf(stderr, "kvcache: cannot start the listener\n");
        exit(1);
    }
    return 0;
}

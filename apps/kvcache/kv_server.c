/* kv_server.c — the server's threads: it starts the workers (kv_worker_main, kv_conn.c: one
 * epoll set each) and the listener, which accepts connections and hands them out.
 *
 * The server listens on -l ADDR (IPv4) and -p PORT with a backlog of -b. One listener thread
 * accepts connections: past -c open connections it answers memcached's "ERROR Too many open
 * connections" and closes the new one at once (counted as rejected_connections; memcached's
 * maxconns_fast), so the listener never stops accepting. Each accepted connection gets
 * TCP_NODELAY and goes to the next worker, round robin, by joining that worker's epoll set;
 * from then on only that worker touches it. The open count is an atomic shared with the
 * workers, which decrement it on close (kv_close).
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

int64_t kv_started;
int kv_open_conns;
static struct kv_worker *kv_workers;

/* Hands an accepted socket to the next worker, round robin (called by the listener only). */
static void kv_conn_adopt(int fd)
{
    static unsigned next;
    struct kv_conn *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    struct kv_worker *w = &kv_workers[next++ % (unsigned)kv_settings.threads];
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

static void kv_workers_start(void)
{
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
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
        listen(fd, kv_settings.backlog) < 0) {
        fprintf(stderr, "kvcache: cannot listen on %s:%d: %s\n", kv_settings.addr,
                kv_settings.port, strerror(errno));
        exit(1);
    }
    return fd;
}

static void kv_accept_loop(int lfd)
{
    static const char busy[] = "ERROR Too many open connections\r\n";
    for (;;) {
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
        kv_conn_adopt(fd);
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
    kv_workers_start();
    kv_assoc_start_maintainer();
    pthread_t t;
    if (pthread_create(&t, NULL, kv_listener_main, (void *)(intptr_t)lfd) != 0) {
        fprintf(stderr, "kvcache: cannot start the listener\n");
        exit(1);
    }
    return 0;
}

/* server.c — Apache worker-MPM shape: processes x (one listener thread + a worker pool).
 *
 * wc_server_run binds the listening socket, prints "webcache: listening on ADDR:PORT", and with
 * --procs 1 runs one server process in place; with more it forks that many, which share the
 * socket (each accepts on it) and each own a cache, as Apache's per-process mod_mem_cache. The
 * parent forwards SIGINT/SIGTERM to them and exits 0 when all exited 0; if one dies on its own,
 * it stops the others and exits 1.
 *
 * A server process: the listener thread accepts connections and queues them (bounded; it waits
 * when the queue is full, as Apache's listener waits for an idle worker); workers take one
 * connection at a time and serve it to the end (wc_conn_serve). The main thread only waits for
 * SIGINT/SIGTERM (blocked in every thread, taken with sigwait); then it sets `stop`, makes the
 * wake pipe readable (every read poll in the process watches it: idle and half-read connections
 * close, no new one is accepted), and waits up to --shutdown-timeout for the workers to finish
 * the responses they are sending; past it, the abort pipe becomes readable and every send gives
 * up (wc_http_abort_fd); a second SIGINT/SIGTERM meanwhile exits at once (status 1). Then it
 * joins all threads, closes what is still queued and frees the cache, and the process exits 0,
 * so exit-time handlers (the TM runtime's TMKIT_STATS profile) run. The listener also publishes the cache's counters for
 * /_stats every 100 ms.
 */
#define _GNU_SOURCE
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conn.h"
#include "handler.h"
#include "stats.h"

struct wc_proc {
    struct wc_ctx ctx;
    int listen_fd, wake[2], abort_pipe[2];
    pthread_mutex_t mu;
    pthread_cond_t nonempty, nonfull;
    int *queue;
    size_t qcap, qhead, qlen;
    int stop;
};

static void *wc__listener(void *arg)
{
    struct wc_proc *p = arg;
    while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
        struct pollfd pf[2] = {{.fd = p->listen_fd, .events = POLLIN},
                               {.fd = p->wake[0], .events = POLLIN}};
        int k = poll(pf, 2, 100);
        if (p->ctx.cfg->procs > 1)
            wc_stats_publish(p->ctx.cache);
        if (k <= 0 || pf[1].revents || !pf[0].revents)
            continue;
        int fd = accept4(p->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                usleep(10000); /* out of descriptors: let workers close some */
            continue; /* EAGAIN: another process took it */
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pthread_mutex_lock(&p->mu);
        while (p->qlen == p->qcap && !p->stop)
            pthread_cond_wait(&p->nonfull, &p->mu);
        if (p->stop) {
            pthread_mutex_unlock(&p->mu);
            close(fd);
            break;
        }
        p->queue[(p->qhead + p->qlen++) % p->qcap] = fd;
        pthread_cond_signal(&p->nonempty);
        pthread_mutex_unlock(&p->mu);
    }
    return NULL;
}

static void *wc__worker(void *arg)
{
    struct wc_proc *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (p->qlen == 0 && !p->stop)
            pthread_cond_wait(&p->nonempty, &p->mu);
        if (p->stop) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        int fd = p->queue[p->qhead];
        p->qhead = (p->qhead + 1) % p->qcap;
        p->qlen--;
        pthread_cond_signal(&p->nonfull);
        pthread_mutex_unlock(&p->mu);
        wc_conn_serve(&p->ctx, fd, p->wake[0]);
    }
}

/* Joins the workers, giving them until `ms` from now to finish what they are sending; then
 * makes every send give up (abort_w). A second SIGINT/SIGTERM exits the process at once. */
static void wc__drain(pthread_t *workers, int n, int abort_w, unsigned ms)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int aborted = 0;
    for (int i = 0; i < n; i++) {
        for (;;) {
            struct timespec now, until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += 20 * 1000000L; /* look at the signals and the clock every 20 ms */
            if (until.tv_nsec >= 1000000000L)
                until.tv_sec++, until.tv_nsec -= 1000000000L;
            if (pthread_timedjoin_np(workers[i], NULL, &until) == 0)
                break;
            struct timespec zero = {0, 0};
            if (sigtimedwait(&set, NULL, &zero) > 0)
                _exit(1); /* the second signal: at once */
            clock_gettime(CLOCK_MONOTONIC, &now);
            uint64_t spent = (uint64_t)(now.tv_sec - t0.tv_sec) * 1000 +
                             (uint64_t)((now.tv_nsec - t0.tv_nsec) / 1000000);
            if (!aborted && spent >= ms) {
                aborted = 1;
                if (write(abort_w, "x", 1) != 1)
                    fprintf(stderr, "webcache: abort pipe: %s\n", strerror(errno));
            }
        }
    }
}

/* One server process; returns its exit status. Signals INT/TERM are blocked on entry. */
static int wc__process(const struct wc_config *cfg, int listen_fd, int index)
{
    struct wc_proc p = {.ctx = {.cfg = cfg}, .listen_fd = listen_fd, .qcap = 256};
    wc_stats_attach(index);
    if (wc_use_cache) {
        struct wc_cache_opts o = {.policy = cfg->policy, .max_entries = cfg->max_entries,
                                  .max_bytes = cfg->max_bytes,
                                  .max_object_size = cfg->max_object_size};
        p.ctx.cache = wc_cache_new(&o);
        if (!p.ctx.cache) {
            fprintf(stderr, "webcache: cannot create the cache (out of memory?)\n");
            return 1;
        }
    }
    pthread_t *workers = calloc((size_t)cfg->threads, sizeof *workers), listener;
    p.queue = calloc(p.qcap, sizeof *p.queue);
    if (!workers || !p.queue || pipe2(p.wake, O_CLOEXEC) != 0 ||
        pipe2(p.abort_pipe, O_CLOEXEC) != 0) {
        fprintf(stderr, "webcache: out of resources at start-up\n");
        return 1;
    }
    wc_http_abort_fd = p.abort_pipe[0];
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.nonempty, NULL);
    pthread_cond_init(&p.nonfull, NULL);
    int started = 0, ok = 1;
    for (; started < cfg->threads && ok; started++)
        ok = pthread_create(&workers[started], NULL, wc__worker, &p) == 0;
    if (!ok)
        started--;
    int have_listener = ok && pthread_create(&listener, NULL, wc__listener, &p) == 0;
    if (have_listener) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        int sig;
        while (sigwait(&set, &sig) != 0)
            ;
    } else {
        fprintf(stderr, "webcache: cannot start %d threads\n", cfg->threads);
    }
    pthread_mutex_lock(&p.mu);
    __atomic_store_n(&p.stop, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&p.nonempty);
    pthread_cond_broadcast(&p.nonfull);
    pthread_mutex_unlock(&p.mu);
    if (write(p.wake[1], "x", 1) != 1)
        fprintf(stderr, "webcache: wake pipe: %s\n", strerror(errno));
    if (have_listener)
        pthread_join(listener, NULL);
    wc__drain(workers, started, p.abort_pipe[1], cfg->shutdown_timeout_ms);
    for (; p.qlen > 0; p.qlen--, p.qhead = (p.qhead + 1) % p.qcap)
        close(p.queue[p.qhead]);
    close(p.wake[0]);
    close(p.wake[1]);
    wc_http_abort_fd = -1;
    close(p.abort_pipe[0]);
    close(p.abort_pipe[1]);
    pthread_cond_destroy(&p.nonempty);
    pthread_cond_destroy(&p.nonfull);
    pthread_mutex_destroy(&p.mu);
    free(workers);
    free(p.queue);
    wc_cache_free(p.ctx.cache);
    return have_listener ? 0 : 1;
}

static int wc__listen(struct wc_config *cfg)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)cfg->port)};
    if (inet_pton(AF_INET, cfg->bind, &a.sin_addr) != 1) {
        fprintf(stderr, "webcache: --bind: not an IPv4 address '%s'\n", cfg->bind);
        return -2;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    socklen_t al = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 511) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &al) != 0) {
        fprintf(stderr, "webcache: cannot listen on %s:%u: %s\n", cfg->bind, cfg->port,
                strerror(errno));
        return -1;
    }
    cfg->port = ntohs(a.sin_port);
    return fd;
}

/* Parent of --procs N: forwards the stop signal, reaps, reports. */
static int wc__supervise(pid_t *kids, int n)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGCHLD);
    int alive = n, stopping = 0, rc = 0, sig;
    while (alive > 0) {
        if (sigwait(&set, &sig) != 0)
            continue;
        if (sig != SIGCHLD) {
            stopping = 1;
        } else {
            int st;
            pid_t pid;
            while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
                for (int i = 0; i < n; i++)
                    if (kids[i] == pid)
                        kids[i] = 0, alive--;
                if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0) || !stopping) {
                    if (!stopping)
                        fprintf(stderr, "webcache: server process %d ended unexpectedly\n", (int)pid);
                    rc = 1;
                    stopping = 1;
                }
            }
        }
        if (stopping)
            for (int i = 0; i < n; i++)
                if (kids[i] > 0)
                    kill(kids[i], SIGTERM);
    }
    return rc;
}

int wc_server_run(struct wc_config *cfg)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &set, NULL); /* inherited by every thread and process */
    signal(SIGPIPE, SIG_IGN);
    int fd = wc__listen(cfg);
    if (fd < 0)
        return fd == -2 ? 2 : 1;
    if (!cfg->link_host[0])
        snprintf(cfg->link_host, sizeof cfg->link_host, "%s:%u", cfg->bind, cfg->port);
    if (wc_stats_init(cfg->procs) != 0) {
        fprintf(stderr, "webcache: cannot map the statistics area\n");
        return 1;
    }
    printf("webcache: listening on %s:%u\n", cfg->bind, cfg->port);
    fflush(stdout);
    if (cfg->procs == 1) {
        int rc = wc__process(cfg, fd, 0);
        close(fd);
        return rc;
    }
    pid_t kids[64] = {0};
    for (int i = 0; i < cfg->procs; i++) {
        kids[i] = fork();
        if (kids[i] == 0)
            exit(wc__process(cfg, fd, i)); /* exit, not _exit: atexit handlers must run */
        if (kids[i] < 0) {
            fprintf(stderr, "webcache: fork: %s\n", strerror(errno));
            kids[i] = 0;
            for (int j = 0; j < i; j++)
                kill(kids[j], SIGTERM);
            for (int j = 0; j < i; j++)
                waitpid(kids[j], NULL, 0);
            return 1;
        }
    }
    close(fd);
    return wc__supervise(kids, cfg->procs);
}

/* server.c — processes, and in each the workers: event loops over shared epoll sets (io.c,
 * leader/followers) that read, answer and send.
 *
 * wc_server_run binds the listening socket, prints "webcache: listening on ADDR:PORT", and with
 * --procs 1 runs one server process in place; with more it forks that many, which share the
 * socket (each accepts on it) and each own a cache, as Apache's per-process mod_mem_cache. The
 * parent forwards SIGINT/SIGTERM to them and exits 0 when all exited 0; if one dies on its own,
 * it stops the others and exits 1.
 *
 * A server process starts --epoll-sets sets with the --threads workers spread over them; its
 * main thread only waits for SIGINT/SIGTERM (blocked in every thread, taken with sigwait). Then
 * it sets `stopping`, shuts the listening socket (new connections are refused, in every process
 * at once) and wakes the sets: they stop accepting, close idle and half-read
 * connections, let the requests in flight be answered and sent (with Connection: close), and
 * their workers end when the set holds no connection. Past --shutdown-timeout it sets
 * `aborting`: the workers close everything, and the abort pipe ends man2html runs
 * (wc_http_abort_fd); a second SIGINT/SIGTERM meanwhile exits at once (status 1). Then it joins
 * all threads and frees the cache, and the process exits 0 through exit(), so exit-time
 * handlers (the TM runtime's TMKIT_STATS profile) run. A worker of set 0 publishes the cache's
 * counters for /_stats every 100 ms.
 */
#define _GNU_SOURCE
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "handler.h"
#include "io.h"
#include "stats.h"

/* Raises the descriptor limit as far as allowed and keeps --max-connections under it (with
 * room for the listening socket, epoll sets and each worker's man2html pipes and page file). */
static void wc__fit_fds(struct wc_config *cfg)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    rlim_t reserve = 64 + 8 * (rlim_t)cfg->threads + 4 * (rlim_t)cfg->epoll_sets;
    rlim_t room = rl.rlim_cur > reserve + 16 ? rl.rlim_cur - reserve : 16;
    if (rl.rlim_cur != RLIM_INFINITY && cfg->max_conns > room) {
        fprintf(stderr, "webcache: --max-connections lowered from %u to %llu (descriptor limit "
                "%llu)\n", cfg->max_conns, (unsigned long long)room,
                (unsigned long long)rl.rlim_cur);
        cfg->max_conns = (unsigned)room;
    }
}

/* After SIGTERM/SIGINT: waits for the workers to finish what is in flight, up to `ms`;
 * then makes everything give up (aborting, the abort pipe). A second signal exits at once. */
static void wc__drain(struct wc_srv *s, struct wc_io *io, int nio, int abort_w, unsigned ms)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    struct timespec t0, now, tick = {0, 20 * 1000000L};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (__atomic_load_n(&s->io_live, __ATOMIC_ACQUIRE) > 0) {
        if (sigtimedwait(&set, NULL, &tick) > 0)
            _exit(1); /* the second signal: at once */
        clock_gettime(CLOCK_MONOTONIC, &now);
        uint64_t spent = (uint64_t)(now.tv_sec - t0.tv_sec) * 1000 +
                         (uint64_t)((now.tv_nsec - t0.tv_nsec) / 1000000);
        if (!s->aborting && spent >= ms) {
            __atomic_store_n(&s->aborting, 1, __ATOMIC_RELEASE);
            if (write(abort_w, "x", 1) != 1)
                fprintf(stderr, "webcache: abort pipe: %s\n", strerror(errno));
            for (int i = 0; i < nio; i++)
                wc_io_wake(&io[i]);
        }
    }
}

/* One server process; returns its exit status. Signals INT/TERM are blocked on entry. */
static int wc__process(const struct wc_config *cfg, int listen_fd, int index)
{
    struct wc_ctx ctx = {.cfg = cfg};
    struct wc_srv s = {.ctx = &ctx, .listen_fd = listen_fd, .max_conns = cfg->max_conns};
    ctx.stopping = &s.stopping;
    int abort_pipe[2];
    wc_stats_attach(index);
    if (wc_use_cache) {
        struct wc_cache_opts o = {.policy = cfg->policy, .max_entries = cfg->max_entries,
                                  .max_bytes = cfg->max_bytes,
                                  .max_object_size = cfg->max_object_size};
        ctx.cache = wc_cache_new(&o);
        if (!ctx.cache) {
            fprintf(stderr, "webcache: cannot create the cache (out of memory?)\n");
            return 1;
        }
    }
    struct wc_io *io = calloc((size_t)cfg->epoll_sets, sizeof *io);
    s.clients = wc_clients_new(cfg->max_conns_per_client);
    if (!io || !s.clients || pipe2(abort_pipe, O_CLOEXEC) != 0) {
        fprintf(stderr, "webcache: out of resources at start-up\n");
        return 1;
    }
    wc_http_abort_fd = abort_pipe[0];
    int nio = 0, ok = 1, sets = cfg->epoll_sets;
    while (ok && nio < sets) { /* a set that failed half-way is joined with the others */
        ok = wc_io_start(&io[nio], &s, nio, cfg->threads / sets + (nio < cfg->threads % sets)) == 0;
        nio++;
    }
    if (ok) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        int sig;
        while (sigwait(&set, &sig) != 0)
            ;
    } else {
        fprintf(stderr, "webcache: cannot start %d workers on %d epoll sets\n", cfg->threads,
                sets);
    }
    __atomic_store_n(&s.stopping, 1, __ATOMIC_RELEASE);
    /* New connections are refused from now on, not accepted into the backlog and reset at the
     * exit: shutting a listening socket for reading closes it in TCP (a SYN gets a RST, the
     * backlog is reset) for every process sharing it, while the descriptor stays valid until
     * each set has taken it out of its epoll set (io.c) and it is closed below. */
    shutdown(listen_fd, SHUT_RD);
    for (int i = 0; i < nio; i++)
        wc_io_wake(&io[i]);
    wc__drain(&s, io, nio, abort_pipe[1], cfg->shutdown_timeout_ms);
    for (int i = 0; i < nio; i++)
        wc_io_join(&io[i]);
    close(listen_fd);
    wc_http_abort_fd = -1;
    close(abort_pipe[0]);
    close(abort_pipe[1]);
    wc_clients_free(s.clients);
    free(io);
    wc_cache_free(ctx.cache);
    return ok ? 0 : 1;
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
        int forward = sig != SIGCHLD; /* each SIGINT/SIGTERM once: a second one is a second */
        if (sig == SIGCHLD) {
            int st;
            pid_t pid;
            while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
                for (int i = 0; i < n; i++)
                    if (kids[i] == pid)
                        kids[i] = 0, alive--;
                if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0) || !stopping) {
                    if (!stopping)
                        fprintf(stderr, "webcache: server process %d ended unexpectedly\n", (int)pid);
                    forward |= !stopping;
                    rc = 1;
                }
            }
        }
        if (forward) {
            stopping = 1;
            for (int i = 0; i < n; i++)
                if (kids[i] > 0)
                    kill(kids[i], SIGTERM);
        }
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
    wc__fit_fds(cfg);
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
    if (cfg->procs == 1)
        return wc__process(cfg, fd, 0);
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

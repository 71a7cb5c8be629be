/* man.c — the man-page backend, done the way a CGI man2html gateway does it.
 *
 * /man/<section>/<name> is looked up as <man-dir>/man<N>/<name>.<section>.gz (then without .gz,
 * then <name>.<section>*); the page is decompressed in-process with zlib (gzread also reads
 * uncompressed files); a page that is only ".so manX/other.X" is followed (up to 4 hops, inside
 * the man tree). The troff source is piped to `man2html -H <link-host> -M /man -p` (links come
 * out as http://<link-host>/man/<section>+<name>, which the server accepts) and its output read
 * back, both through poll() so neither side can block the other; man2html gets
 * --request-timeout to finish, then SIGKILL. The CGI header it prints (Content-type, maybe
 * Status) is stripped; a Status other than 200 means the page could not be rendered (502).
 * Everything here runs outside the cache's critical section.
 */
#define _GNU_SOURCE
#include "man.h"

#include "http.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define WC_MAN_MAX_SOURCE (8u << 20)
#define WC_MAN_MAX_HTML (32u << 20)

extern char **environ;

int wc_man_valid(const char *section, const char *name)
{
    size_t sl = strlen(section), nl = strlen(name);
    if (sl < 1 || sl > 8 || section[0] < '1' || section[0] > '9')
        return 0;
    for (size_t i = 1; i < sl; i++)
        if (!((section[i] >= 'a' && section[i] <= 'z') || (section[i] >= '0' && section[i] <= '9')))
            return 0;
    if (nl < 1 || nl > 128 || name[0] == '.' || strstr(name, ".."))
        return 0;
    for (size_t i = 0; i < nl; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              strchr("_.:+@-", c)))
            return 0;
    }
    return 1;
}

static int wc__is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int wc__find(const struct wc_config *cfg, const char *sec, const char *name, char *out,
                    size_t size)
{
    snprintf(out, size, "%s/man%c/%s.%s.gz", cfg->man_dir, sec[0], name, sec);
    if (wc__is_file(out))
        return 1;
    snprintf(out, size, "%s/man%c/%s.%s", cfg->man_dir, sec[0], name, sec);
    if (wc__is_file(out))
        return 1;
    char pat[1200];
    snprintf(pat, sizeof pat, "%s/man%c/%s.%s*", cfg->man_dir, sec[0], name, sec);
    glob_t g;
    int found = 0;
    if (glob(pat, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc && !found; i++)
            if (wc__is_file(g.gl_pathv[i])) {
                snprintf(out, size, "%s", g.gl_pathv[i]);
                found = 1;
            }
        globfree(&g);
    }
    return found;
}

/* Reads (and decompresses) a page; NULL if unreadable or too large. */
static char *wc__read_page(const char *path, size_t *len)
{
    gzFile gz = gzopen(path, "rb");
    if (!gz)
        return NULL;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (!buf)
            break;
        if (n == cap) {
            char *nb = cap >= WC_MAN_MAX_SOURCE ? NULL : realloc(buf, cap * 2 + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb, cap *= 2;
        }
        int k = gzread(gz, buf + n, (unsigned)(cap - n));
        if (k < 0) {
            free(buf);
            buf = NULL;
        }
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    gzclose(gz);
    if (buf)
        buf[n] = '\0', *len = n;
    return buf;
}

/* If the page is a ".so manX/file" redirect, writes the target's path and returns 1. */
static int wc__so_target(const struct wc_config *cfg, const char *src, char *out, size_t size)
{
    const char *p = src;
    while (*p) { /* skip comment and blank lines */
        if (strncmp(p, ".\\\"", 3) == 0 || strncmp(p, "'\\\"", 3) == 0 || *p == '\n') {
            const char *nl = strchr(p, '\n');
            p = nl ? nl + 1 : p + strlen(p);
            continue;
        }
        break;
    }
    if (strncmp(p, ".so ", 4) != 0)
        return 0;
    p += 4;
    while (*p == ' ')
        p++;
    size_t n = strcspn(p, " \t\r\n");
    if (n == 0 || n > 200 || p[0] == '/' || memmem(p, n, "..", 2))
        return 0;
    snprintf(out, size, "%s/%.*s.gz", cfg->man_dir, (int)n, p);
    if (wc__is_file(out))
        return 1;
    snprintf(out, size, "%s/%.*s", cfg->man_dir, (int)n, p);
    return wc__is_file(out);
}

static uint64_t wc__now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Runs man2html with src on stdin; returns its output (malloc'd) or NULL. */
static char *wc__man2html(const struct wc_config *cfg, const char *path, const char *src,
                          size_t src_len, size_t *out_len)
{
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0)
        return NULL;
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(in[0]), close(in[1]);
        return NULL;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    /* its warnings about the page are not the server's: our stderr is for our own messages */
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    sigset_t none, dfl;
    sigemptyset(&none);
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGPIPE);
    sigaddset(&dfl, SIGINT);
    sigaddset(&dfl, SIGTERM);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &dfl);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    char *argv[] = {(char *)cfg->man2html, "-H", (char *)cfg->link_host, "-M", "/man", "-p",
                    "-D", (char *)path, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, cfg->man2html, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(in[0]), close(out[1]);
    if (rc != 0) {
        close(in[1]), close(out[0]);
        return NULL;
    }
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    size_t cap = 1 << 16, n = 0, sent = 0;
    char *buf = malloc(cap + 1);
    int ok = buf != NULL, infd = in[1];
    uint64_t deadline = wc__now_us() + (uint64_t)cfg->request_timeout_ms * 1000u;
    while (ok) {
        if (infd >= 0 && sent == src_len)
            close(infd), infd = -1;
        struct pollfd pf[3] = {{.fd = out[0], .events = POLLIN},
                               {.fd = wc_http_abort_fd, .events = POLLIN},
                               {.fd = infd, .events = POLLOUT}};
        uint64_t now = wc__now_us();
        if (now >= deadline || poll(pf, infd >= 0 ? 3 : 2, (int)((deadline - now) / 1000 + 1)) < 0) {
            ok = errno == EINTR && now < deadline;
            continue;
        }
        if (pf[1].revents) { /* the server's shutdown deadline */
            ok = 0;
            continue;
        }
        if (infd >= 0 && (pf[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t k = write(infd, src + sent, src_len - sent);
            if (k > 0)
                sent += (size_t)k;
            else if (k < 0 && errno != EAGAIN && errno != EINTR)
                sent = src_len; /* man2html stopped reading: take what it wrote */
        }
        if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            if (n == cap) {
                char *nb = cap >= WC_MAN_MAX_HTML ? NULL : realloc(buf, cap * 2 + 1);
                if (!nb) {
                    ok = 0;
                    continue;
                }
                buf = nb, cap *= 2;
            }
            ssize_t k = read(out[0], buf + n, cap - n);
            if (k == 0)
                break;
            if (k > 0)
                n += (size_t)k;
            else if (errno != EINTR && errno != EAGAIN)
                ok = 0;
        }
    }
    if (infd >= 0)
        close(infd);
    close(out[0]);
    if (!ok)
        kill(pid, SIGKILL);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *out_len = n;
    return buf;
}

/* Strips the CGI header in place; returns the CGI status (200 if none given). */
static int wc__strip_cgi(struct wc_page *pg)
{
    int status = 200;
    char *p = pg->body, *end = pg->body + pg->len;
    if (strncasecmp(p, "Content-type:", 13) != 0 && strncasecmp(p, "Status:", 7) != 0)
        return status;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return 502;
        size_t n = (size_t)(nl - p);
        if (n > 0 && p[n - 1] == '\r')
            n--;
        if (n == 0) {
            p = nl + 1;
            break;
        }
        if (n > 13 && strncasecmp(p, "Content-type:", 13) == 0) {
            const char *v = p + 13;
            while (*v == ' ')
                v++;
            snprintf(pg->content_type, sizeof pg->content_type, "%.*s", (int)(p + n - v), v);
        } else if (n > 7 && strncasecmp(p, "Status:", 7) == 0) {
            status = atoi(p + 7);
        }
        p = nl + 1;
    }
    pg->len = (size_t)(end - p);
    memmove(pg->body, p, pg->len);
    return status;
}

void wc_man_render(const struct wc_config *cfg, const char *section, const char *name,
                   struct wc_page *out)
{
    uint64_t t0 = wc__now_us();
    memset(out, 0, sizeof *out);
    snprintf(out->content_type, sizeof out->content_type, "text/html; charset=UTF-8");
    char path[1024], next[1024];
    if (!wc__find(cfg, section, name, path, sizeof path)) {
        out->status = 404;
        return;
    }
    size_t len = 0;
    char *src = wc__read_page(path, &len);
    for (int hops = 0; src && hops < 4 && wc__so_target(cfg, src, next, sizeof next); hops++) {
        free(src);
        memcpy(path, next, sizeof path);
        src = wc__read_page(path, &len);
    }
    if (!src) {
        out->status = 404;
        return;
    }
    out->body = wc__man2html(cfg, path, src, len, &out->len);
    free(src);
    if (!out->body || wc__strip_cgi(out) != 200) {
        free(out->body);
        out->body = NULL;
        out->status = 502;
        return;
    }
    out->status = 200;
    if (cfg->max_age > 0)
        snprintf(out->cache_control, sizeof out->cache_control, "max-age=%u", cfg->max_age);
    else
        snprintf(out->cache_control, sizeof out->cache_control, "no-store");
    out->cost_us = wc__now_us() - t0 + 1;
}

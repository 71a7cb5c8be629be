/* kv_conn.c — the worker threads and their connections.
 *
 * The listener (kv_server.c) hands each accepted connection to a worker, round robin, by adding
 * it to that worker's epoll set (kv_conn_adopt); from then on only that worker touches it.
 * Workers run a level-
 * triggered epoll loop: read what is there, let the protocol consume as many complete commands
 * as the input holds, send what it can, and wait for EPOLLOUT when the socket is full. A
 * connection with more than KV_WBUF_HIGH bytes of unsent replies is not read until they drain,
 * so a client that pipelines gets without reading cannot grow the server's memory without
 * bound. A connection runs at most -R commands (20) per turn: with more input buffered it
 * yields (conn_yields) and goes on a list its worker runs after the ready connections, so one
 * client's long pipeline does not hold up the others. A client that disconnects mid-command loses
 * the command (an item being filled is released, never linked). The protocol of a connection is
 * chosen by its first byte (0x80: binary), unless -B fixes it.
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

/* Runs the protocol over the buffered input; 1 if it stopped at the -R budget with input left. */
static int kv_process(struct kv_conn *c)
{
    int budget = kv_settings.reqs_per_event;
    while (!c->closing && c->wlen - c->wpos < KV_WBUF_HIGH) {
        if (c->swallow) {
            size_t n = c->swallow < c->rlen ? c->swallow : c->rlen;
            if (n == 0)
                break;
            kv_consume(c, n);
            c->swallow -= n;
            continue;
        }
        if (c->item) {
            if (!kv_text_value(c))
                break;
            continue;
        }
        if (c->rlen == 0)
            break;
        if (budget == 0) {
            kv_tstat_add(c->stats, KV_TS_conn_yields, 1);
            return 1;
        }
        if (c->proto == KV_PROTO_NONE)
            c->proto = kv_settings.binding == KV_BIND_ASCII    ? KV_PROTO_TEXT
                       : kv_settings.binding == KV_BIND_BINARY ? KV_PROTO_BINARY
                       : (unsigned char)c->rbuf[c->rpos] == 0x80 ? KV_PROTO_BINARY
                                                                 : KV_PROTO_TEXT;
        int more = c->proto == KV_PROTO_TEXT ? kv_text_step(c) : kv_binary_step(c);
        if (!more)
            break;
        budget--;
    }
    return 0;
}

static void kv_pending_add(struct kv_worker *w, struct kv_conn *c)
{
    if (c->pending)
        return;
    c->pending = 1;
    c->pprev = NULL;
    c->pnext = w->pending;
    if (w->pending)
        w->pending->pprev = c;
    w->pending = c;
}

static void kv_pending_remove(struct kv_worker *w, struct kv_conn *c)
{
    if (!c->pending)
        return;
    if (c->pprev)
        c->pprev->pnext = c->pnext;
    else
        w->pending = c->pnext;
    if (c->pnext)
        c->pnext->pprev = c->pprev;
    c->pending = 0;
    c->pnext = c->pprev = NULL;
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

void kv_close(struct kv_conn *c)
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

/* ev: the epoll events, or 0 for a connection that yielded (its input is buffered). */
static void kv_handle(struct kv_worker *w, struct kv_conn *c, unsigned ev)
{
    int r = (ev & (EPOLLIN | EPOLLHUP | EPOLLERR)) ? kv_read(c) : 1;
    if (r >= 0 && kv_process(c)) /* at end of input, still answer the complete commands */
        kv_pending_add(w, c);
    if (r < 0 || !kv_flush_out(c) || r == 0 || (c->closing && c->wpos == c->wlen)) {
        kv_pending_remove(w, c);
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

void *kv_worker_main(void *arg)
{
    struct kv_worker *w = arg;
    struct epoll_event evs[64];
    for (;;) {
        int n = epoll_wait(w->epfd, evs, 64, w->pending ? 0 : -1);
        for (int i = 0; i < n; i++)
            kv_handle(w, evs[i].data.ptr, evs[i].events);
        struct kv_conn *list = w->pending; /* the ones that yielded get their next turn */
        w->pending = NULL;
        while (list) {
            struct kv_conn *c = list;
            list = c->pnext;
            c->pending = 0;
            c->pnext = c->pprev = NULL;
            kv_handle(w, c, 0);
        }
    }
    return NULL;
}

/* kv_conn.h — a client connection, as the protocol modules see it.
 *
 * A connection belongs to one worker thread for its whole life, so nothing here is shared.
 * Input accumulates in rbuf (unparsed bytes at rbuf + rpos, rlen of them); replies are appended
 * to wbuf and sent by the worker. A text storage command streams its value straight into the
 * item being stored (item, item_off, item_need); a refused one discards its value (swallow).
 */
#ifndef KV_CONN_H
#define KV_CONN_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "kv.h"

enum kv_proto { KV_PROTO_NONE, KV_PROTO_TEXT, KV_PROTO_BINARY };

struct kv_conn {
    int fd;
    struct kv_tstats *stats; /* the worker's */
    enum kv_proto proto;
    char *rbuf;
    size_t rpos, rlen, rcap;
    char *wbuf;
    size_t wpos, wlen, wcap;
    unsigned events; /* epoll interest now */
    int closing;     /* close once wbuf is sent */
    /* a text storage command's value being read */
    kv_item *item;
    size_t item_off; /* value bytes copied so far */
    char tail[2];    /* the two bytes after the value, must be \r\n */
    int store_op;
    uint64_t store_cas;
    int noreply;
    size_t swallow; /* input bytes still to discard (a refused value) */
    /* -R: a connection that ran reqs_per_event commands with more input buffered yields; its
     * worker runs it again after the other ready connections (kv_conn.c) */
    int pending;
    struct kv_conn *pnext, *pprev;
};

/* Appends n bytes / a string to the replies. */
void kv_out(struct kv_conn *c, const void *data, size_t n);
void kv_outs(struct kv_conn *c, const char *s);
/* Appends s and "\r\n" unless the command said noreply. */
void kv_reply(struct kv_conn *c, const char *s);
/* Drops n parsed input bytes. */
void kv_consume(struct kv_conn *c, size_t n);

/* One step of each protocol on the buffered input: 1 if it consumed something and may be called
 * again, 0 if it needs more input. */
int kv_text_step(struct kv_conn *c);
int kv_text_value(struct kv_conn *c); /* streams a storage command's value */
int kv_binary_step(struct kv_conn *c);

/* A worker thread (started by kv_server.c, run by kv_conn.c): its epoll set, its counters, and
 * the connections that yielded at the -R budget (doubly linked through kv_conn.pnext/pprev). */
struct kv_worker {
    pthread_t thread;
    int epfd;
    struct kv_tstats *stats;
    struct kv_conn *pending;
};
void *kv_worker_main(void *worker);
/* Closes and frees a connection (its worker's thread, or the listener before handing it out). */
void kv_close(struct kv_conn *c);
extern int kv_open_conns; /* atomic: open connections, for -c (kv_server.c) */

#define KV_WBUF_HIGH (4u << 20) /* stop reading while this much output is unsent */

#endif

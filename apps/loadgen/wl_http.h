/* wl_http: one HTTP/1.1 client connection for the closed-loop load generator.
 *
 * A connection sends one GET and reads the whole response before the next (no pipelining).
 * The response is framed by Content-Length, by chunked transfer coding, or (without either) by
 * the server closing the connection; the body is counted, not kept. The connection is reused
 * (keep-alive) unless the response says `Connection: close` or is HTTP/1.0 without keep-alive.
 * Every wait is a poll() of at most 50 ms, so a caller's deadline or abandon flag is seen
 * promptly even when the server stalls.
 */
#ifndef WL_HTTP_H
#define WL_HTTP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

typedef struct {
    struct sockaddr_storage addr;
    socklen_t addrlen;
    char base[256];     /* "http://HOST:PORT" as given */
    char host[256];     /* Host header value: "HOST:PORT" */
} wl_target;

/* Parses "http://HOST[:PORT]" (PORT defaults to 80; nothing after it but an optional "/")
 * and resolves HOST. Returns 0, or -1 with a message in err. */
int wl_target_parse(wl_target *t, const char *base, char *err, size_t errlen);

enum wl_err {
    WL_OK = 0,
    WL_ERR_CONNECT,   /* connect() failed */
    WL_ERR_IO,        /* send/recv failed, or the server closed in the middle of a response */
    WL_ERR_PARSE,     /* not a valid HTTP/1.x response */
    WL_ERR_TIMEOUT,   /* no complete response before the deadline */
    WL_ERR_ABANDONED, /* the caller's abandon flag was raised */
};

typedef struct {
    int fd;            /* -1 when not connected */
    int reused;        /* the connection already carried a response */
    char *buf;
    size_t cap, start, end;
    uint64_t received;  /* bytes ever received on this wl_conn */
} wl_conn;

typedef struct {
    int status;        /* e.g. 200 */
    uint64_t bytes;    /* header + body bytes received */
} wl_response;

void wl_conn_init(wl_conn *c);
void wl_conn_close(wl_conn *c);
void wl_conn_free(wl_conn *c);

/* Sends req (a complete request of len bytes) and reads the response. deadline_ns is on the
 * CLOCK_MONOTONIC scale; abandon may be NULL. On error the connection is closed. */
enum wl_err wl_conn_get(wl_conn *c, const wl_target *t, const char *req, size_t len,
                        uint64_t deadline_ns, const atomic_int *abandon, wl_response *out);

uint64_t wl_now_ns(void);

#endif

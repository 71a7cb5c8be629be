/* pool.c — the worker pool: threads that take connections with a complete request from one
 * FIFO queue, answer them (wc_conn_work: the handler, the cache's critical sections, the send
 * that the socket takes at once) and give them back to their I/O thread. A worker never waits
 * for a client: no read, no blocking send, so idle, slow or stalled clients cost none.
 */
#include "pool.h"

#include <pthread.h>
#include <stdlib.h>

#include "io.h"

struct wc_pool {
    const struct wc_ctx *ctx;
    const int *stopping;
    pthread_mutex_t mu;
    pthread_cond_t nonempty;
    struct wc_conn *head, *tail;
    int stop, nthreads;
    pthread_t threads[];
};

static void *wc__worker(void *arg)
{
    struct wc_pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->head && !p->stop)
            pthread_cond_wait(&p->nonempty, &p->mu);
        struct wc_conn *c = p->head;
        if (!c) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        p->head = c->link;
        if (!p->head)
            p->tail = NULL;
        pthread_mutex_unlock(&p->mu);
        c->link = NULL;
        int next = wc_conn_work(c, p->ctx, __atomic_load_n(p->stopping, __ATOMIC_ACQUIRE));
        wc_io_handback(c, next);
    }
}

struct wc_pool *wc_pool_start(const struct wc_ctx *ctx, int threads, const int *stopping)
{
    struct wc_pool *p = calloc(1, sizeof *p + (size_t)threads * sizeof(pthread_t));
    if (!p)
        return NULL;
    p->ctx = ctx;
    p->stopping = stopping;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->nonempty, NULL);
    for (; p->nthreads < threads; p->nthreads++)
        if (pthread_create(&p->threads[p->nthreads], NULL, wc__worker, p) != 0) {
            wc_pool_stop(p);
            return NULL;
        }
    return p;
}

void wc_pool_push(struct wc_pool *p, struct wc_conn *c)
{
    c->link = NULL;
    pthread_mutex_lock(&p->mu);
    if (p->tail)
        p->tail->link = c;
    else
        p->head = c;
    p->tail = c;
    pthread_cond_signal(&p->nonempty);
    pthread_mutex_unlock(&p->mu);
}

void wc_pool_stop(struct wc_pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->nonempty);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->nonempty);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

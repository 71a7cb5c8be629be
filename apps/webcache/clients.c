/* clients.c — a small hash table from client IPv4 address to its open connections, under one
 * mutex (taken once per accept and per close). An address is removed when its count drops to
 * zero, so the table holds at most as many entries as there are connections.
 */
#include "clients.h"

#include <pthread.h>
#include <stdlib.h>

#define WC_CLIENT_BUCKETS 4096

struct wc_client {
    uint32_t addr;
    unsigned n;
    struct wc_client *next;
};

struct wc_clients {
    unsigned limit;
    pthread_mutex_t mu;
    struct wc_client *bucket[WC_CLIENT_BUCKETS];
};

static struct wc_client **wc__slot(struct wc_clients *t, uint32_t addr)
{
    struct wc_client **p = &t->bucket[(addr * 2654435761u) >> 20 & (WC_CLIENT_BUCKETS - 1)];
    while (*p && (*p)->addr != addr)
        p = &(*p)->next;
    return p;
}

struct wc_clients *wc_clients_new(unsigned limit)
{
    struct wc_clients *t = calloc(1, sizeof *t);
    if (t) {
        t->limit = limit;
        pthread_mutex_init(&t->mu, NULL);
    }
    return t;
}

int wc_clients_add(struct wc_clients *t, uint32_t addr)
{
    if (!t->limit)
        return 1;
    int ok = 1;
    pthread_mutex_lock(&t->mu);
    struct wc_client **p = wc__slot(t, addr);
    if (!*p && (*p = calloc(1, sizeof **p)))
        (*p)->addr = addr;
    if (!*p || (*p)->n >= t->limit)
        ok = 0;
    else
        (*p)->n++;
    pthread_mutex_unlock(&t->mu);
    return ok;
}

void wc_clients_del(struct wc_clients *t, uint32_t addr)
{
    if (!t->limit)
        return;
    pthread_mutex_lock(&t->mu);
    struct wc_client **p = wc__slot(t, addr), *e = *p;
    if (e && --e->n == 0) {
        *p = e->next;
        free(e);
    }
    pthread_mutex_unlock(&t->mu);
}

void wc_clients_free(struct wc_clients *t)
{
    if (!t)
        return;
    for (int i = 0; i < WC_CLIENT_BUCKETS; i++)
        while (t->bucket[i]) {
            struct wc_client *e = t->bucket[i];
            t->bucket[i] = e->next;
            free(e);
        }
    pthread_mutex_destroy(&t->mu);
    free(t);
}

/* io_timer.c — an epoll set's deadlines (its lock held): five lists (io.h, WC_T_*) whose connections all
 * wait the same time from when they joined, so each list is in deadline order: adding,
 * removing and finding the next deadline cost O(1).
 */
#include "io_accept.h"

#include <time.h>

uint64_t wc_io_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void wc_io_untime(struct wc_io *io, struct wc_conn *c)
{
    if (c->list < 0)
        return;
    struct wc_tlist *l = &io->lists[c->list];
    *(c->prev ? &c->prev->next : &l->head) = c->next;
    *(c->next ? &c->next->prev : &l->tail) = c->prev;
    c->prev = c->next = NULL;
    c->list = -1;
}

/* Puts c in list `which` with its deadline from now, unless it is in that list already. */
void wc_io_time(struct wc_io *io, struct wc_conn *c, int which)
{
    if (c->list == which)
        return;
    wc_io_untime(io, c);
    struct wc_tlist *l = &io->lists[which];
    c->deadline = wc_io_now() + l->ms;
    c->prev = l->tail;
    *(l->tail ? &l->tail->next : &l->head) = c;
    l->tail = c;
    c->list = which;
}

int wc_io_timeout(struct wc_io *io, uint64_t now)
{
    uint64_t until = now + 100; /* at least every 100 ms: shutdown, /_stats, paused accept */
    for (int l = 0; l < WC_T_N; l++)
        if (io->lists[l].head && io->lists[l].head->deadline < until)
            until = io->lists[l].head->deadline;
    return until > now ? (int)(until - now) : 0;
}

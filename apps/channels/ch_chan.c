/* ch_chan.c — named channels (ch_chan.h).
 *
 * A channel holds no messages: a send meets a parked receiver, or parks the sender with its
 * message until a receiver comes (luaproc's rendezvous). Each channel has two FIFO queues of
 * parked processes; at most one of them is non-empty.
 *
 * Parking takes two steps. Inside the channel's section the process joins a queue and marks
 * the channel `busy`; it then yields, and only when lua_resume has returned on its worker
 * (ch_chan_parked) is it safe for another worker to resume it, so the worker then clears
 * `busy` and signals `free`. Every operation on a channel first waits for it to be free: the
 * third of luaproc's condition variables. Nothing slow happens while a channel is busy (the
 * unwinding of one lua_resume).
 *
 * Lifetime: the table holds one reference to each channel, every operation in progress and
 * every parked process one more. delchannel unlinks the channel, marks it deleted, empties its
 * queues (their processes resume with an error) and drops the table's reference; the last
 * reference frees it, outside every section. The channels left when the script ends are freed
 * with the runtime (ch_chan_shutdown).
 */
#include "ch_chan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CH_TABLE_SIZE 256 /* buckets; chains grow without limit */

struct ch_chan {
    ch_chan *next_in_bucket;
    ch_lock_t lock;
    ch_cond_t free; /* no process is half-way through parking */
    ch_proc *sendq, *sendq_tail, *recvq, *recvq_tail;
    int busy, deleted, refs;
    unsigned hash;
    size_t len;
    char name[]; /* not NUL-terminated */
};

static struct {
    ch_lock_t lock;
    ch_chan *bucket[CH_TABLE_SIZE];
} table;

void ch_chan_init(void)
{
    CH_LOCK_INIT(&table.lock);
}

static unsigned name_hash(const char *s, size_t len)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static CH_TM_SAFE int name_eq(const ch_chan *c, unsigned h, const char *s, size_t len)
{
    if (c->hash != h || c->len != len)
        return 0;
    for (size_t i = 0; i < len; i++) /* a loop GCC does not turn into memcmp */
        if (c->name[i] != s[i])
            return 0;
    return 1;
}

/* The channel in its bucket's chain, and the link pointing to it; inside the table section. */
static CH_TM_SAFE ch_chan **find(unsigned h, const char *s, size_t len)
{
    ch_chan **link = &table.bucket[h % CH_TABLE_SIZE];
    while (*link && !name_eq(*link, h, s, len))
        link = &(*link)->next_in_bucket;
    return link;
}

static void chan_free(ch_chan *c)
{
    CH_LOCK_DESTROY(&c->lock);
    CH_COND_DESTROY(&c->free);
    free(c);
}

/* Only with every worker joined and no process left: what the table holds is the table's alone
 * (a parked process would be active, and wait() has seen none). */
void ch_chan_shutdown(void)
{
    for (int i = 0; i < CH_TABLE_SIZE; i++) {
        while (table.bucket[i]) {
            ch_chan *c = table.bucket[i];
            table.bucket[i] = c->next_in_bucket;
            chan_free(c);
        }
    }
}

int ch_chan_create(const char *name, size_t len)
{
    ch_chan *c = calloc(1, sizeof *c + len);
    if (!c)
        return -1;
    CH_LOCK_INIT(&c->lock);
    CH_COND_INIT(&c->free);
    c->refs = 1;
    c->hash = name_hash(name, len);
    c->len = len;
    memcpy(c->name, name, len);
    int exists;
    CH_CS_BEGIN(&table.lock);
    ch_chan **link = find(c->hash, name, len);
    exists = *link != NULL;
    if (!exists)
        *link = c;
    CH_CS_END(&table.lock);
    if (exists) {
        chan_free(c);
        errno = EEXIST;
        return -1;
    }
    return 0;
}

ch_chan *ch_chan_acquire(const char *name, size_t len)
{
    unsigned h = name_hash(name, len);
    ch_chan *c;
    CH_CS_BEGIN(&table.lock);
    c = *find(h, name, len);
    if (c) {
        CH_CS_BEGIN(&c->lock);
        c->refs++;
        CH_CS_END(&c->lock);
    }
    CH_CS_END(&table.lock);
    return c;
}

void ch_chan_release(ch_chan *c)
{
    int last = 0;
    CH_CS_BEGIN(&c->lock);
    last = --c->refs == 0;
    CH_CS_END(&c->lock);
    if (last)
        chan_free(c);
}

static CH_TM_SAFE void append(ch_proc **head, ch_proc **tail, ch_proc *p)
{
    p->next = NULL;
    if (*tail)
        (*tail)->next = p;
    else
        *head = p;
    *tail = p;
}

static CH_TM_SAFE ch_proc *pop(ch_proc **head, ch_proc **tail)
{
    ch_proc *p = *head;
    *head = p->next;
    if (!*head)
        *tail = NULL;
    return p;
}

/* The hand-over of a send on a free channel; inside its section. */
static CH_TM_SAFE int send_in(ch_chan *c, ch_proc *self, ch_msg *m, ch_proc **w)
{
    *w = NULL;
    if (c->deleted)
        return CH_R_DELETED;
    if (c->recvq) {
        ch_proc *p = pop(&c->recvq, &c->recvq_tail);
        p->msg = m;
        p->status = CH_OK;
        *w = p;
        return CH_R_DONE;
    }
    if (!self)
        return CH_R_NONE;
    self->op = CH_OP_SEND;
    self->chan = c;
    self->msg = m;
    append(&c->sendq, &c->sendq_tail, self);
    c->busy = 1;
    return CH_R_PARKED;
}

/* The same for a receive. */
static CH_TM_SAFE int recv_in(ch_chan *c, ch_proc *self, ch_msg **m, ch_proc **w)
{
    *w = NULL;
    *m = NULL;
    if (c->deleted)
        return CH_R_DELETED;
    if (c->sendq) {
        ch_proc *p = pop(&c->sendq, &c->sendq_tail);
        *m = p->msg;
        p->msg = NULL;
        p->status = CH_OK;
        *w = p;
        return CH_R_DONE;
    }
    if (!self)
        return CH_R_NONE;
    self->op = CH_OP_RECV;
    self->chan = c;
    self->msg = NULL;
    append(&c->recvq, &c->recvq_tail, self);
    c->busy = 1;
    return CH_R_PARKED;
}

/* Each operation first tries a plain section, and waits for the channel to be free only if it
 * was busy (rare: a process is half-way through parking on it). In the tm build this keeps
 * the waiting transaction (tm_atomic_retry, which must be able to roll back and so always runs
 * instrumented) off the common path; the lock and busy-wait builds take the same two steps. */
#define CH_R_BUSY (-1)

int ch_chan_send(ch_chan *c, ch_proc *self, ch_msg *m, ch_proc **woken)
{
    int r;
    ch_proc *w = NULL;
    CH_CS_BEGIN(&c->lock);
    r = c->busy ? CH_R_BUSY : send_in(c, self, m, &w);
    CH_CS_END(&c->lock);
    if (r == CH_R_BUSY) {
        CH_CS_WAIT_BEGIN(&c->lock);
        CH_WAIT_UNTIL(&c->lock, &c->free, !c->busy);
        r = send_in(c, self, m, &w);
        CH_CS_WAIT_END(&c->lock);
    }
    *woken = w;
    return r;
}

int ch_chan_recv(ch_chan *c, ch_proc *self, ch_msg **m, ch_proc **woken)
{
    int r;
    ch_proc *w = NULL;
    ch_msg *got = NULL;
    CH_CS_BEGIN(&c->lock);
    r = c->busy ? CH_R_BUSY : recv_in(c, self, &got, &w);
    CH_CS_END(&c->lock);
    if (r == CH_R_BUSY) {
        CH_CS_WAIT_BEGIN(&c->lock);
        CH_WAIT_UNTIL(&c->lock, &c->free, !c->busy);
        r = recv_in(c, self, &got, &w);
        CH_CS_WAIT_END(&c->lock);
    }
    *m = got;
    *woken = w;
    return r;
}

void ch_chan_parked(ch_proc *p)
{
    ch_chan *c = p->chan; /* p cannot run again before the section below ends */
    CH_CS_BEGIN(&c->lock);
    c->busy = 0;
    /* A reference of our own until the broadcast has taken effect: in the tm build it does so
     * at the commit, after which p may already have been woken (delchannel) and have dropped
     * the last other reference, freeing c under the broadcast (heap corruption, 1 in ~1000
     * runs of delchannel.lua under orec_eager, 2026-11-25). */
    c->refs++;
    CH_BROADCAST(&c->free);
    CH_CS_END(&c->lock);
    ch_chan_release(c);
}

int ch_chan_delete(const char *name, size_t len)
{
    unsigned h = name_hash(name, len);
    ch_chan *c;
    CH_CS_BEGIN(&table.lock);
    ch_chan **link = find(h, name, len);
    c = *link;
    if (c)
        *link = c->next_in_bucket;
    CH_CS_END(&table.lock);
    if (!c)
        return -1;

    ch_proc *parked = NULL;
    int last = 0;
    CH_CS_WAIT_BEGIN(&c->lock);
    CH_WAIT_UNTIL(&c->lock, &c->free, !c->busy);
    c->deleted = 1;
    /* at most one queue is non-empty */
    parked = c->sendq ? c->sendq : c->recvq;
    c->sendq = c->sendq_tail = c->recvq = c->recvq_tail = NULL;
    last = --c->refs == 0;
    CH_CS_WAIT_END(&c->lock);

    while (parked) { /* ours alone now: nobody can reach them through the channel */
        ch_proc *p = parked;
        parked = p->next;
        p->status = CH_DELETED;
        ch_sched_push(p);
    }
    if (last)
        chan_free(c);
    return 0;
}

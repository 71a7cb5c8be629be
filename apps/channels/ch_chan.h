/* ch_chan.h — named channels: the table, and the send/receive/park/delete protocol. */
#ifndef CH_CHAN_H
#define CH_CHAN_H

#include "ch_core.h"

/* Results of the operations. */
enum ch_result {
    CH_R_DONE,    /* handed over; *woken (if not NULL) is for the caller to make runnable */
    CH_R_PARKED,  /* self is in the channel's queue: it must yield now (ch_chan_parked after) */
    CH_R_NONE,    /* nobody to hand over to, and the caller may not park */
    CH_R_DELETED, /* the channel was deleted */
};

void ch_chan_init(void);
/* Free every channel left in the table; at the runtime's end, once no process is left. */
void ch_chan_shutdown(void);
/* 0, or -1 when a channel of that name exists (or memory ran out: errno). */
int ch_chan_create(const char *name, size_t len);
/* 0, or -1 when there is no such channel. Parked processes get CH_DELETED and are made
 * runnable. */
int ch_chan_delete(const char *name, size_t len);
/* The channel of that name with a reference held, or NULL. */
ch_chan *ch_chan_acquire(const char *name, size_t len);
void ch_chan_release(ch_chan *c);

/* Send m on c. A parked receiver takes it (*woken: the caller makes it runnable). Otherwise
 * self (NULL: may not park) parks in the send queue owning m, keeping its reference to c. */
int ch_chan_send(ch_chan *c, ch_proc *self, ch_msg *m, ch_proc **woken);
/* Receive from c into *m. A parked sender gives its message (*woken: make it runnable).
 * Otherwise self (NULL: may not park) parks in the receive queue. */
int ch_chan_recv(ch_chan *c, ch_proc *self, ch_msg **m, ch_proc **woken);
/* Called by p's worker once p has yielded after CH_R_PARKED: p may now be resumed by others. */
void ch_chan_parked(ch_proc *p);

#endif

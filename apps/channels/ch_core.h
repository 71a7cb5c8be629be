/* ch_core.h — the objects shared by the parts of channels, and who may touch what.
 *
 * A Lua process (ch_proc) is a coroutine in a lua_State of its own, run by whichever worker
 * thread takes it from the ready queue (ch_sched.c). A process is in at most one list at a time,
 * linked through `next`: the ready queue, one channel's queue of parked senders or receivers,
 * or none (running on a worker, or being parked). Locks and what they guard:
 *
 *   sched.lock    ready queue, count of active processes, worker exit requests (ch_sched.c)
 *   table lock    the channel table (ch_chan.c)
 *   chan->lock    the channel's two queues, busy/deleted flags, reference count
 *   recycle lock  the list of recycled states (ch_proc.c)
 * Order: table lock before a channel's lock; no other nesting.
 *
 * The three conditions (ch_sync.h): a worker waits for `ready` (a process to run or a request
 * to exit); wait() waits for `idle` (no active process); an operation on a channel waits for
 * the channel to be `free` (no process half-way through parking on it: between taking its place
 * in a queue and its worker seeing it yield, when nobody may resume it yet).
 *
 * The fields of a process other than `next` belong to whoever holds the process: the worker
 * running it, or the thread that took it off a channel queue (which hands it a message or an
 * error, then pushes it on the ready queue: the queue's section publishes those writes).
 */
#ifndef CH_CORE_H
#define CH_CORE_H

#include <lua.h>
#include <stddef.h>

#include "ch_sync.h"

typedef struct ch_msg ch_msg;
typedef struct ch_chan ch_chan;

enum ch_op { CH_OP_NONE, CH_OP_SEND, CH_OP_RECV };
enum ch_status { CH_OK, CH_DELETED };

typedef struct ch_proc {
    struct ch_proc *next; /* the list it is in */
    lua_State *S;         /* its state (maybe recycled from a finished process) */
    lua_State *L;         /* the coroutine that runs it, anchored in S's registry */
    int ref;              /* that anchor */
    int op;               /* enum ch_op: what it is parked for (set before it yields) */
    int status;           /* enum ch_status: how the parked operation ended */
    ch_chan *chan;        /* the channel it is parked on (holding a reference) */
    ch_msg *msg;          /* send: the message to deliver; receive: the message delivered */
} ch_proc;

/* ch_sched.c */
void ch_sched_init(void);
void ch_sched_push(ch_proc *p);     /* make p runnable */
void ch_sched_spawn(ch_proc *p);    /* a new process: one more active, and runnable */
void ch_sched_done(void);           /* a process finished: one fewer active */
void ch_sched_wait_idle(void);      /* until no process is active */
int ch_sched_set_workers(int n);    /* 0 or an errno */
int ch_sched_get_workers(void);
void ch_sched_shutdown(void);       /* stop and join every worker */

/* ch_proc.c */
void ch_proc_run(ch_proc *p);       /* resume p on this worker until it yields or ends */
ch_proc *ch_proc_self(lua_State *L); /* the process L belongs to; NULL in the main state */
void ch_proc_set_recycle(int n);
void ch_proc_shutdown(void);        /* close recycled states */

#endif

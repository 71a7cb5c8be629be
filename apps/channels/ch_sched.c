/* ch_sched.c — the ready queue and the worker threads.
 *
 * One FIFO of runnable processes feeds a pool of workers (pthreads). A worker takes the head,
 * resumes it (ch_proc_run) until it yields or ends, and takes the next; with nothing to run it
 * waits on the `ready` condition (the lock build sleeps, tm-busywait spins in a transaction, tm
 * sleeps in tm_cond_wait). `active` counts processes created and not yet finished, parked ones
 * included; wait() waits on `idle` until it is zero.
 *
 * setnumworkers(n) starts threads at once, or posts exit requests that the next idle workers
 * take instead of a process (an exiting worker finishes the process it is running first).
 * Every thread ever started is joined at shutdown (the module's __gc, before Lua unloads the
 * library), so no worker outlives the code it runs. The thread list is configuration, not part
 * of the experiment: it has its own pthread mutex in every build.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "ch_core.h"

static struct {
    ch_lock_t lock;
    ch_cond_t ready; /* a process is queued, or a worker must exit */
    ch_cond_t idle;  /* no active process */
    ch_proc *head, *tail;
    int active; /* processes not yet finished */
    int exits;  /* exit requests not yet taken */
} sched;

static struct {
    pthread_mutex_t lock;
    pthread_t *threads; /* every thread started, exited or not */
    int started, cap;
    int workers; /* the number asked for: started minus exit requests posted */
} pool = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0};

void ch_sched_init(void)
{
    CH_LOCK_INIT(&sched.lock);
    CH_COND_INIT(&sched.ready);
    CH_COND_INIT(&sched.idle);
}

/* The queue's tail append; called inside sched sections only. */
static CH_TM_SAFE void enqueue(ch_proc *p)
{
    p->next = NULL;
    if (sched.tail)
        sched.tail->next = p;
    else
        sched.head = p;
    sched.tail = p;
}

void ch_sched_push(ch_proc *p)
{
    CH_CS_BEGIN(&sched.lock);
    enqueue(p);
    CH_SIGNAL(&sched.ready);
    CH_CS_END(&sched.lock);
}

void ch_sched_spawn(ch_proc *p)
{
    CH_CS_BEGIN(&sched.lock);
    sched.active++;
    enqueue(p);
    CH_SIGNAL(&sched.ready);
    CH_CS_END(&sched.lock);
}

void ch_sched_done(void)
{
    CH_CS_BEGIN(&sched.lock);
    if (--sched.active == 0)
        CH_BROADCAST(&sched.idle);
    CH_CS_END(&sched.lock);
}

void ch_sched_wait_idle(void)
{
    CH_CS_WAIT_BEGIN(&sched.lock);
    CH_WAIT_UNTIL(&sched.lock, &sched.idle, sched.active == 0);
    CH_CS_WAIT_END(&sched.lock);
}

/* Takes the head of the queue, or an exit request (*p NULL); inside a sched section. 0 if
 * there is neither. */
static CH_TM_SAFE int take_in(ch_proc **p)
{
    if (sched.exits > 0) {
        sched.exits--;
        *p = NULL;
        return 1;
    }
    if (!sched.head)
        return 0;
    *p = sched.head;
    sched.head = (*p)->next;
    if (!sched.head)
        sched.tail = NULL;
    return 1;
}

/* The next process to run, or NULL when this worker is to exit. A plain section first; the
 * waiting one (which the tm build must run instrumented) only when the queue is empty. */
static ch_proc *take(void)
{
    ch_proc *p = NULL;
    int got;
    CH_CS_BEGIN(&sched.lock);
    got = take_in(&p);
    CH_CS_END(&sched.lock);
    if (!got) {
        CH_CS_WAIT_BEGIN(&sched.lock);
        CH_WAIT_UNTIL(&sched.lock, &sched.ready, sched.head != NULL || sched.exits > 0);
        take_in(&p);
        CH_CS_WAIT_END(&sched.lock);
    }
    return p;
}

static void *worker_main(void *arg)
{
    (void)arg;
    for (ch_proc *p; (p = take()) != NULL;)
        ch_proc_run(p);
    return NULL;
}

static void post_exits(int n)
{
    CH_CS_BEGIN(&sched.lock);
    sched.exits += n;
    CH_BROADCAST(&sched.ready);
    CH_CS_END(&sched.lock);
}

int ch_sched_set_workers(int n)
{
    int err = 0;
    pthread_mutex_lock(&pool.lock);
    while (pool.workers < n) {
        if (pool.started == pool.cap) {
            int cap = pool.cap ? 2 * pool.cap : 8;
            pthread_t *t = realloc(pool.threads, (size_t)cap * sizeof *t);
            if (!t) {
                err = ENOMEM;
                break;
            }
            pool.threads = t;
            pool.cap = cap;
        }
        err = pthread_create(&pool.threads[pool.started], NULL, worker_main, NULL);
        if (err)
            break;
        pool.started++;
        pool.workers++;
    }
    if (pool.workers > n) {
        post_exits(pool.workers - n);
        pool.workers = n;
    }
    pthread_mutex_unlock(&pool.lock);
    return err;
}

int ch_sched_get_workers(void)
{
    pthread_mutex_lock(&pool.lock);
    int n = pool.workers;
    pthread_mutex_unlock(&pool.lock);
    return n;
}

void ch_sched_shutdown(void)
{
    pthread_mutex_lock(&pool.lock);
    if (pool.workers > 0)
        post_exits(pool.workers);
    pool.workers = 0;
    for (int i = 0; i < pool.started; i++)
        pthread_join(pool.threads[i], NULL);
    free(pool.threads);
    pool.threads = NULL;
    pool.started = pool.cap = 0;
    pthread_mutex_unlock(&pool.lock);
}

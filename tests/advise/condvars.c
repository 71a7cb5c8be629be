/* Condition variables for tmkit advise's tm_cond_t rewrite (tools/tmkit_cli/advise/condvars.py):
 * one that fits (a wait loop and a signal under its lock), and one of each shape it leaves as a
 * pthread_cond_t, with the reason: two mutexes, a condition in a struct field, a write or an
 * I/O call before the wait, an unconditional wait, a timed wait in a loop, a predicate that calls,
 * and two conditions in one declaration (each would change the other's type). */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER, m2 = PTHREAD_MUTEX_INITIALIZER,
                       m3 = PTHREAD_MUTEX_INITIALIZER, m4 = PTHREAD_MUTEX_INITIALIZER,
                       m5 = PTHREAD_MUTEX_INITIALIZER, m6 = PTHREAD_MUTEX_INITIALIZER,
                       m7 = PTHREAD_MUTEX_INITIALIZER, m8 = PTHREAD_MUTEX_INITIALIZER,
                       m9 = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c1 = PTHREAD_COND_INITIALIZER;
static pthread_cond_t c2 = PTHREAD_COND_INITIALIZER;
static pthread_cond_t c3a = PTHREAD_COND_INITIALIZER, c3b = PTHREAD_COND_INITIALIZER;
static pthread_cond_t c4 = PTHREAD_COND_INITIALIZER;
static pthread_cond_t c5 = PTHREAD_COND_INITIALIZER;
static pthread_cond_t c6 = PTHREAD_COND_INITIALIZER;
static pthread_cond_t c7 = PTHREAD_COND_INITIALIZER;
static pthread_cond_t c8 = PTHREAD_COND_INITIALIZER;
static int r1, r2, r3, r4, r5, r6, r7, r8, n4;
static long taken;

struct queue {
    pthread_mutex_t m;
    pthread_cond_t c;
    int n;
};
struct queue *qp;

void fits_wait(void)
{
    pthread_mutex_lock(&m1);
    while (!r1)
        pthread_cond_wait(&c1, &m1);
    r1 = 0;
    taken++;
    pthread_mutex_unlock(&m1);
}

void fits_signal(void)
{
    pthread_mutex_lock(&m1);
    r1 = 1;
    pthread_cond_signal(&c1);
    pthread_mutex_unlock(&m1);
}

void two_mutexes(void)
{
    pthread_mutex_lock(&m2);
    while (!r2)
        pthread_cond_wait(&c2, &m2);
    pthread_mutex_unlock(&m2);
    pthread_mutex_lock(&m3);
    while (!r2)
        pthread_cond_wait(&c2, &m3);
    pthread_mutex_unlock(&m3);
}

void in_a_field(void)
{
    pthread_mutex_lock(&qp->m);
    while (!qp->n)
        pthread_cond_wait(&qp->c, &qp->m);
    qp->n--;
    pthread_mutex_unlock(&qp->m);
}

void write_before(void)
{
    pthread_mutex_lock(&m4);
    n4++;
    while (!r4)
        pthread_cond_wait(&c4, &m4);
    pthread_mutex_unlock(&m4);
}

void io_before(void)
{
    pthread_mutex_lock(&m5);
    puts("waiting");
    if (!r5)
        pthread_cond_wait(&c5, &m5);
    pthread_mutex_unlock(&m5);
}

void unconditional(void)
{
    pthread_mutex_lock(&m6);
    pthread_cond_wait(&c6, &m6);
    r6 = 0;
    pthread_mutex_unlock(&m6);
}

void timed_loop(const struct timespec *at)
{
    pthread_mutex_lock(&m7);
    while (!r7)
        pthread_cond_timedwait(&c7, &m7, at);
    pthread_mutex_unlock(&m7);
}

static int ready8(void)
{
    return r8;
}

void calling_predicate(void)
{
    pthread_mutex_lock(&m8);
    while (!ready8())
        pthread_cond_wait(&c8, &m8);
    pthread_mutex_unlock(&m8);
}

void one_declaration(void)
{
    pthread_mutex_lock(&m9);
    while (!r3)
        pthread_cond_wait(&c3a, &m9);
    if (!r3)
        pthread_cond_wait(&c3b, &m9);
    pthread_mutex_unlock(&m9);
}

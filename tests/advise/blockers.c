/* What blocks a transaction: I/O on every path or only on some, condition-variable wait and
 * signal, volatile and _Atomic accesses, atomic builtins, inline asm, libc calls GCC rejects
 * (strlen) or accepts (memcpy, malloc, free), calls followed into functions with source, a call
 * through a function pointer, and an assertion. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;   /* queue and its condition variable */
static pthread_cond_t ready_cv = PTHREAD_COND_INITIALIZER;
static int queue_len, counter;
static char names[16][32];
static volatile int vflag;
static _Atomic int acount;
static int plain;
static void (*hook)(int);

static void log_counter(void) { fprintf(stderr, "counter %d\n", counter); }
static void helper_maybe_log(int v) { if (v > 100) log_counter(); counter += v; }
static void helper_safe(int v) { counter += v; }

void io_every_path(void)
{
    pthread_mutex_lock(&m);
    counter++;
    log_counter();
    pthread_mutex_unlock(&m);
}

void io_some_paths(int v)
{
    pthread_mutex_lock(&m);
    helper_maybe_log(v);
    pthread_mutex_unlock(&m);
}

void safe_calls(const char *src, int i)
{
    pthread_mutex_lock(&m);
    char *p = malloc(32);
    memcpy(p, src, 8);
    memcpy(names[i & 15], p, 8);
    free(p);
    helper_safe(i);
    pthread_mutex_unlock(&m);
}

int uses_strlen(int i)
{
    pthread_mutex_lock(&m);
    int n = (int)strlen(names[i & 15]);
    pthread_mutex_unlock(&m);
    return n;
}

void wait_for_work(void)
{
    pthread_mutex_lock(&qlock);
    while (queue_len == 0)
        pthread_cond_wait(&ready_cv, &qlock);
    queue_len--;
    pthread_mutex_unlock(&qlock);
}

void post_work(void)
{
    pthread_mutex_lock(&qlock);
    queue_len++;
    pthread_cond_signal(&ready_cv);
    pthread_mutex_unlock(&qlock);
}

void touch_volatile(void)
{
    pthread_mutex_lock(&m);
    vflag = 1;
    pthread_mutex_unlock(&m);
}

void touch_atomic(void)
{
    pthread_mutex_lock(&m);
    acount++;
    __atomic_add_fetch(&plain, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&m);
}

void with_asm(void)
{
    pthread_mutex_lock(&m);
    counter++;
    __asm__ __volatile__("" ::: "memory");
    pthread_mutex_unlock(&m);
}

void call_hook(int v)
{
    pthread_mutex_lock(&m);
    if (hook)
        hook(v);
    pthread_mutex_unlock(&m);
}

void checked(int v)
{
    pthread_mutex_lock(&m);
    assert(v >= 0);
    counter = v;
    pthread_mutex_unlock(&m);
}

/* Fixture (local_locks.expected.json): which lock objects count as local. A lock object in a
 * local variable is kept (its address may be handed to other threads); a lock field reached
 * through a local pointer is the record's, shared, also when the record is a typedef'd
 * anonymous struct (zstd's `ZSTDMT_jobDescription *const job = ...; lock(&job->job_mutex)`,
 * memcached's `store_io_thread *t; lock(&t->mutex)`). */
#include <pthread.h>

typedef struct {
    pthread_mutex_t mutex;
    int n;
} job_t;

struct pool {
    pthread_mutex_t lock;
    int free;
};

static int total;

void job_add(void *arg);
void pool_take(struct pool *p);
void local_lock(void);

void job_add(void *arg)
{
    job_t *const job = (job_t *)arg;
    pthread_mutex_lock(&job->mutex);
    job->n++;
    pthread_mutex_unlock(&job->mutex);
}

void pool_take(struct pool *p)
{
    struct pool *const q = p;
    pthread_mutex_lock(&q->lock);
    q->free--;
    pthread_mutex_unlock(&q->lock);
}

void local_lock(void)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&m);
    total++;
    pthread_mutex_unlock(&m);
}

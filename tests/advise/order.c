/* Lock order: a -> b directly, b -> c through a call, c -> a through a wrapper: a cycle
 * (potential deadlock). d and e nest consistently (no cycle). Two instances of one struct
 * lock nested inside each other form a self-cycle. */
#include <pthread.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER,
                       c = PTHREAD_MUTEX_INITIALIZER, d = PTHREAD_MUTEX_INITIALIZER,
                       e = PTHREAD_MUTEX_INITIALIZER;
static int x, y, z;

struct account { pthread_mutex_t lock; long balance; };

static void lock_a(void) { pthread_mutex_lock(&a); }
static void unlock_a(void) { pthread_mutex_unlock(&a); }

static void touch_c(void)
{
    pthread_mutex_lock(&c);
    z++;
    pthread_mutex_unlock(&c);
}

void ab(void)
{
    pthread_mutex_lock(&a);
    pthread_mutex_lock(&b);
    x++;
    pthread_mutex_unlock(&b);
    pthread_mutex_unlock(&a);
}

void bc(void)
{
    pthread_mutex_lock(&b);
    y++;
    touch_c();
    pthread_mutex_unlock(&b);
}

void ca(void)
{
    pthread_mutex_lock(&c);
    lock_a();
    x--;
    unlock_a();
    pthread_mutex_unlock(&c);
}

void de(void)
{
    pthread_mutex_lock(&d);
    pthread_mutex_lock(&e);
    y--;
    pthread_mutex_unlock(&e);
    pthread_mutex_unlock(&d);
}

void transfer(struct account *from, struct account *to, long n)
{
    pthread_mutex_lock(&from->lock);
    pthread_mutex_lock(&to->lock);
    from->balance -= n;
    to->balance += n;
    pthread_mutex_unlock(&to->lock);
    pthread_mutex_unlock(&from->lock);
}

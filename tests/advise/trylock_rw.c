/* trylock (the section starts on the success branch), rwlock read/write sections, spinlock,
 * and a C11 mtx. */
#include <pthread.h>
#include <threads.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t table_rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t spin;
static mtx_t c11;
static int table[128], hot, spun, c11_count;

int try_bump(void)
{
    if (pthread_mutex_trylock(&m) == 0) {
        hot++;
        pthread_mutex_unlock(&m);
        return 1;
    }
    return 0;
}

int try_bump_early(void)
{
    if (pthread_mutex_trylock(&m) != 0)
        return 0;
    hot--;
    pthread_mutex_unlock(&m);
    return 1;
}

int lookup(int k)
{
    pthread_rwlock_rdlock(&table_rw);
    int v = table[k & 127];
    pthread_rwlock_unlock(&table_rw);
    return v;
}

void store(int k, int v)
{
    pthread_rwlock_wrlock(&table_rw);
    table[k & 127] = v;
    pthread_rwlock_unlock(&table_rw);
}

void spin_add(int n)
{
    pthread_spin_lock(&spin);
    spun += n;
    pthread_spin_unlock(&spin);
}

void c11_add(void)
{
    mtx_lock(&c11);
    c11_count++;
    mtx_unlock(&c11);
}

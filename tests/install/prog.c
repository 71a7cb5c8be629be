/* A program built against the installed tmkit (tests/install/test_tree.sh): two threads add in
 * transactions and through a deferred counter; it prints the runtime's build string and the file
 * it was loaded from, so the test sees which libitm.so.1 ran it (on GCC's libitm, where tmkit's
 * names are missing, it says so and still prints its sums). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <tmkit.h>

extern const char tmkit_version[] __attribute__((weak));

static long total;
static tm_counter_t adds = TM_COUNTER_INITIALIZER;

static void *work(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10000; i++) {
        __transaction_atomic {
            total++;
            tm_counter_add(&adds, 1);
        }
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    Dl_info d;
    long n = tm_counter_read(&adds);
    if (!tmkit_version || !dladdr(tmkit_version, &d)) {
        /* GCC's libitm: tmkit.h's counter fell back to a transactional add */
        printf("not running on tmkit|%ld|%ld\n", total, n);
        return 1;
    }
    printf("%s|%s|%ld|%ld\n", tmkit_version, d.dli_fname, total, n);
    return total == 20000 && n == 20000 ? 0 : 1;
}

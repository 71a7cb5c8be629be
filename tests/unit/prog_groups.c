/* Lock groups' refusals and bookkeeping (test_groups.sh), one case per argument:
 *   inside   tm_group_enter/exit inside a relaxed transaction: they compose (group_tx.c)
 *   inside-order    inside a transaction, a group below one taken before it: refused
 *   inside-upgrade  tm_group_lock inside a transaction of a group entered before it: refused
 *   inside-notheld  tm_group_exit inside a transaction of a group not held: refused
 *   deadlock        an irrevocable transaction waits for a group whose holder then begins a
 *                   transaction: stopped with a message (about a second later), not a hang
 *   deadlock-held   an irrevocable transaction holding g[1] waits for g[0], whose holder then
 *                   locks g[1]: stopped with a message
 *   profile-tx      one thread enters and locks groups inside transactions from known lines
 *   order    a second call takes a group below one held: refused
 *   upgrade  tm_group_lock of a group held in shared mode: refused
 *   notheld  tm_group_exit of a group not held: refused
 *   mode     tm_group_unlock of a group taken by tm_group_enter: refused
 *   exits    threads end holding groups (shared, exclusive): the others go on
 *   profile  2 threads enter and lock groups from known lines, for the profile's counts
 *   fork     a thread holds a group in shared mode while the main thread forks: in the child
 *            (where that thread does not exist) the group can be locked exclusively
 *   starve   4 readers enter a group back to back (one always holds it) while a writer locks it
 *            200 times: the writer is not starved (it must finish; the worst wait is printed) */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tmkit.h>

static tm_group_t g[2] = {TM_GROUP_INITIALIZER, TM_GROUP_INITIALIZER};
static long data;

static void *hold_and_exit(void *arg)
{
    if (arg)
        tm_group_lock(&g[0]);
    else
        tm_group_enter(&g[0], &g[1]);
    return NULL; /* without giving them back */
}

static volatile int holding, release_it;

static void *hold_shared(void *arg)
{
    (void)arg;
    tm_group_enter(&g[0]);
    __atomic_store_n(&holding, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&release_it, __ATOMIC_ACQUIRE))
        usleep(1000);
    tm_group_exit(&g[0]);
    return NULL;
}

static void *profile_worker(void *arg)
{
    long n = (long)(intptr_t)arg;
    for (long i = 0; i < n; i++) {
        tm_group_enter(&g[0]); /* PROFILE-ENTER */
        __transaction_atomic { data++; }
        tm_group_exit(&g[0]);
        if (i % 100 == 0) {
            tm_group_lock(&g[0]); /* PROFILE-LOCK */
            usleep(100);
            tm_group_unlock(&g[0]);
        }
    }
    return NULL;
}

/* A hybrid section whose calls the advisor leaves inside its callers' transactions. */
__attribute__((transaction_safe, noinline)) static void tx_section(void)
{
    tm_group_enter(&g[0]); /* PROFILE-TX-ENTER */
    data++;
    tm_group_exit(&g[0]);
}

static void profile_tx(void)
{
    for (int i = 0; i < 1000; i++) {
        __transaction_atomic { tx_section(); }
        if (i % 100 == 0) {
            __transaction_relaxed {
                tm_group_lock(&g[1]); /* PROFILE-TX-LOCK */
                data++;
                if (data < 0)
                    usleep(1); /* an unsafe call on one path: not irrevocable from the start */
                tm_group_unlock(&g[1]);
            }
        }
    }
}

/* The holder of g[0] for the deadlock cases: it takes g[0], lets the main thread wait for it
 * in an irrevocable transaction, then begins a transaction (or locks g[1]) while holding it. */
static volatile int locked;

static void *deadlock_holder(void *arg)
{
    tm_group_lock(&g[0]);
    __atomic_store_n(&locked, 1, __ATOMIC_RELEASE);
    usleep(100000); /* the main thread is waiting by now */
    if (arg) {
        tm_group_lock(&g[1]); /* held by the waiting transaction */
        tm_group_unlock(&g[1]);
    } else {
        __transaction_atomic { data++; }
    }
    tm_group_unlock(&g[0]);
    return NULL;
}

static void deadlock(int held)
{
    pthread_t t;
    if (pthread_create(&t, NULL, deadlock_holder, (void *)(intptr_t)held))
        exit(3);
    while (!__atomic_load_n(&locked, __ATOMIC_ACQUIRE))
        usleep(1000);
    __transaction_relaxed {
        usleep(1); /* unsafe: irrevocable from here */
        if (held)
            tm_group_enter(&g[1]);
        tm_group_enter(&g[0]);
        data++;
        tm_group_exit(&g[0]);
        if (held)
            tm_group_exit(&g[1]);
    }
    pthread_join(t, NULL);
}

static int stop_readers;

static void *reader_loop(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&stop_readers, __ATOMIC_ACQUIRE)) {
        tm_group_enter(&g[0]);
        __transaction_atomic { data++; }
        for (volatile int k = 0; k < 20000; k++) /* ~20 us held: the readers' holds overlap, so */
            ;                                    /* a writer waiting for none would wait forever */
        tm_group_exit(&g[0]);
    }
    return NULL;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int starve(void)
{
    pthread_t r[4];
    for (int k = 0; k < 4; k++)
        if (pthread_create(&r[k], NULL, reader_loop, NULL))
            return 3;
    while (__atomic_load_n(&data, __ATOMIC_RELAXED) < 1000) /* the readers are going */
        usleep(100);
    double worst = 0, t0 = now_ms();
    for (int i = 0; i < 200; i++) {
        double a = now_ms();
        tm_group_lock(&g[0]);
        double w = now_ms() - a;
        long seen = data;
        data = seen; /* exclusive: plain code */
        tm_group_unlock(&g[0]);
        worst = w > worst ? w : worst;
    }
    double total = now_ms() - t0;
    __atomic_store_n(&stop_readers, 1, __ATOMIC_RELEASE);
    for (int k = 0; k < 4; k++)
        pthread_join(r[k], NULL);
    printf("starve: 200 exclusive locks among 4 readers in %.1f ms, worst wait %.2f ms\n",
           total, worst);
    return 0;
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    if (!strcmp(c, "inside")) {
        __transaction_relaxed {
            tm_group_enter(&g[0]);
            data++;
            tm_group_exit(&g[0]);
        }
        tm_group_lock(&g[0]); /* given back at the commit */
        tm_group_unlock(&g[0]);
    } else if (!strcmp(c, "inside-order")) {
        tm_group_lock(&g[1]);
        __transaction_atomic {
            tm_group_enter(&g[0]);
            data++;
            tm_group_exit(&g[0]);
        }
    } else if (!strcmp(c, "inside-upgrade")) {
        tm_group_enter(&g[0]);
        __transaction_relaxed {
            tm_group_lock(&g[0]);
            data++;
            tm_group_unlock(&g[0]);
        }
    } else if (!strcmp(c, "inside-notheld")) {
        __transaction_atomic {
            tm_group_exit(&g[0]);
            data++;
        }
    } else if (!strcmp(c, "deadlock") || !strcmp(c, "deadlock-held")) {
        deadlock(!strcmp(c, "deadlock-held"));
    } else if (!strcmp(c, "profile-tx")) {
        profile_tx();
        if (data != 1010)
            return 4;
    } else if (!strcmp(c, "order")) {
        tm_group_enter(&g[1]);
        tm_group_enter(&g[0]);
    } else if (!strcmp(c, "upgrade")) {
        tm_group_enter(&g[0]);
        tm_group_lock(&g[0]);
    } else if (!strcmp(c, "notheld")) {
        tm_group_exit(&g[0]);
    } else if (!strcmp(c, "mode")) {
        tm_group_enter(&g[0]);
        tm_group_unlock(&g[0]);
    } else if (!strcmp(c, "exits")) {
        pthread_t t;
        for (int k = 0; k < 2; k++) {
            if (pthread_create(&t, NULL, hold_and_exit, (void *)(intptr_t)k) || pthread_join(t, NULL))
                return 3;
        }
        tm_group_lock(&g[0], &g[1]); /* hangs if the ended threads still held them */
        tm_group_unlock(&g[0], &g[1]);
    } else if (!strcmp(c, "fork")) {
        pthread_t t;
        if (pthread_create(&t, NULL, hold_shared, NULL))
            return 3;
        while (!__atomic_load_n(&holding, __ATOMIC_ACQUIRE))
            usleep(1000);
        pid_t kid = fork();
        if (kid < 0)
            return 3;
        if (kid == 0) {
            tm_group_lock(&g[0]); /* hangs if the parent thread's shared hold came along */
            tm_group_unlock(&g[0]);
            _exit(0);
        }
        int st;
        if (waitpid(kid, &st, 0) != kid || !WIFEXITED(st) || WEXITSTATUS(st))
            return 5;
        __atomic_store_n(&release_it, 1, __ATOMIC_RELEASE);
        pthread_join(t, NULL);
        tm_group_lock(&g[0]); /* and the parent's own groups still work */
        tm_group_unlock(&g[0]);
    } else if (!strcmp(c, "profile")) {
        pthread_t t[2];
        for (int k = 0; k < 2; k++)
            if (pthread_create(&t[k], NULL, profile_worker, (void *)(intptr_t)2000))
                return 3;
        for (int k = 0; k < 2; k++)
            pthread_join(t[k], NULL);
        if (data != 4000)
            return 4;
    } else if (!strcmp(c, "starve")) {
        int rc = starve();
        if (rc)
            return rc;
    } else {
        fprintf(stderr, "usage: prog_groups inside|inside-order|inside-upgrade|inside-notheld|deadlock|"
                        "deadlock-held|profile-tx|order|upgrade|notheld|mode|exits|fork|profile|"
                        "starve\n");
        return 2;
    }
    puts("ok");
    return 0;
}

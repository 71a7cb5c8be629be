/* fork() while another thread sleeps in tm_retry: the child (which has only the forking thread)
 * runs transactions, waits with a deadline and counts; nothing of the parent's waiter is left in
 * it. The parent's waiter is then woken as usual. */
// TMTEST: libitm=skip:the fallback waits by re-running the transaction, so the fork often lands while the waiter is inside one, and the child hangs in its first transaction as in proc_fork_busy (every method)
#include "harness.h"
#include <sys/wait.h>
#include <tmkit.h>

static long flag, child_count;
static tm_counter_t commits = TM_COUNTER_INITIALIZER;

static void *waiter(void *arg)
{
    (void)arg;
    tm_atomic_retry {
        if (!flag)
            tm_retry();
    }
    return NULL;
}

int main(void)
{
    th_check_runtime();
    pthread_t t;
    for (int i = 0; i < 100; i++)
        __transaction_atomic { tm_counter_add(&commits, 1); }
    CHECK(pthread_create(&t, NULL, waiter, NULL) == 0);
    usleep(20000); /* the waiter is asleep by now (or soon: either way the test holds) */
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        for (int i = 0; i < 1000; i++)
            __transaction_atomic { child_count++; tm_counter_add(&commits, 1); }
        /* a wait in the child: nothing wakes it, the deadline ends it */
        tm_deadline_t dl = tm_deadline_in(10 * 1000000ull);
        int expired = 0;
        tm_atomic_retry {
            if (!flag)
                tm_retry_until(dl);
            expired = !flag;
        }
        _exit(child_count == 1000 && expired && tm_counter_read(&commits) == 1100 ? 0 : 1);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    __transaction_atomic { flag = 1; }
    CHECK(pthread_join(t, NULL) == 0);
    CHECK_EQ(tm_counter_read(&commits), 100);
    puts("ok");
    return 0;
}

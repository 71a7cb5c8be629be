/* The program of unit.plugin (test_plugin.sh), built with and without tmkit's GCC plugin.
 * Threads move units between accounts whose fields are 8, 4, 2 and 1 bytes wide, through a
 * transaction_safe function (its clone) and in the transaction itself, while read-only audits
 * check that every field's sum (mod its width) never changes; a misaligned 8-byte field in a
 * packed array takes the barrier call. The moves may cancel (never_cancel is never set), so
 * they run their instrumented path even in the exclusive modes (serial_undo). Every thread's
 * moves and audits must add up at the end.
 * Prints whether the runtime's inline data resolved (tmkit: yes; GCC's libitm: no). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ACCOUNTS 64

struct account {
    uint64_t a;
    uint32_t b;
    uint16_t c;
    uint8_t d;
};
static struct account acct[ACCOUNTS];
static struct __attribute__((packed)) {
    char pad;
    uint64_t v;
} packed[4];
static long audits_failed, moves_done;
static long iters = 20000;
int never_cancel; /* never set: GCC must assume it may be */

/* The runtime's inline data, as the plugin's code finds it. */
extern const char tmkit_inline_v1[] __attribute__((weak));

__attribute__((transaction_safe, noinline)) static void move(struct account *from,
                                                             struct account *to)
{
    from->a -= 1;
    to->a += 1;
    from->b -= 3;
    to->b += 3;
    from->c -= 5;
    to->c += 5;
}

static int audit(void)
{
    uint64_t a = 0;
    uint32_t b = 0;
    uint16_t c = 0;
    uint8_t d = 0;
    __transaction_atomic {
        for (int i = 0; i < ACCOUNTS; i++) {
            a += acct[i].a;
            b += acct[i].b;
            c += acct[i].c;
            d += acct[i].d;
        }
    }
    return a == ACCOUNTS * 1000ull && b == (uint32_t)(ACCOUNTS * 1000u) &&
           c == (uint16_t)(ACCOUNTS * 1000u) && d == (uint8_t)(ACCOUNTS * (1000u & 0xff));
}

static void *worker(void *arg)
{
    unsigned s = (unsigned)(uintptr_t)arg * 2654435761u + 7;
    long failed = 0;
    for (long i = 0; i < iters; i++) {
        s = s * 1103515245u + 12345;
        int x = (s >> 8) % ACCOUNTS, y = (s >> 20) % ACCOUNTS;
        __transaction_atomic {
            move(&acct[x], &acct[y]);
            acct[x].d -= 7;
            acct[y].d += 7;
            packed[x & 3].v += 1;
            if (never_cancel)
                __transaction_cancel;
        }
        if (i % 64 == 0 && !audit())
            failed++;
    }
    __atomic_fetch_add(&audits_failed, failed, __ATOMIC_RELAXED);
    __atomic_fetch_add(&moves_done, iters, __ATOMIC_RELAXED);
    return NULL;
}

int main(void)
{
    const char *env = getenv("TEST_THREADS");
    int n = env ? atoi(env) : 2;
    if (n < 1 || n > 64)
        n = 2;
    if (getenv("TEST_ITERS"))
        iters = atol(getenv("TEST_ITERS"));
    for (int i = 0; i < ACCOUNTS; i++)
        acct[i] = (struct account){1000, 1000, 1000, (uint8_t)(1000u & 0xff)};
    pthread_t t[64];
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    uint64_t pk = 0;
    for (int i = 0; i < 4; i++)
        pk += packed[i].v;
    int ok = audit() && audits_failed == 0 && moves_done == n * iters && pk == (uint64_t)n * iters;
    printf("threads=%d moves=%ld audits_failed=%ld packed=%llu inline_data=%s ok=%d\n", n,
           moves_done, audits_failed, (unsigned long long)pk, tmkit_inline_v1 ? "yes" : "no", ok);
    return !ok;
}

#!/bin/sh
# A hardware transaction aborts, with no cause bit, when the CPU has to walk the page tables to a
# page whose accessed bit is clear; the kernel's page aging clears those bits behind the
# program's back. Code that only hardware transactions run never had them set again, and every
# hardware try aborted from then on (core/htm.c: tm_htm_touch). This test ages the runtime's code
# itself: a thread calls madvise(MADV_COLD) over every executable mapping of libitm each
# millisecond (which clears the accessed bits and flushes the TLB entries, as DAMON's sampling
# does to a few pages at a time), while the others run tiny transactions for a second under
# TMKIT_ALGO=htm, at 2 threads and at 4 (more threads than cores). At least 90% of the attempts
# that started on the serial path must commit in hardware (before the fix: 0-2.6%), and every
# increment must be there.
# Needs a CPU whose RTM transactions commit, MADV_COLD (Linux 5.4) and threads that run at once:
# skipped (77) otherwise.
. "$(dirname "$0")/lib.sh"
htm_test_setup
cat > "$d/aged.c" <<'C'
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static long own[64][8]; /* a line per thread */
static long shared;     /* every 64th transaction also adds here */
static pthread_barrier_t start;
static atomic_int stop, done;

static void *run(void *arg)
{
    long *mine = own[(long)arg];
    pthread_barrier_wait(&start);
    for (long i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i++)
        __transaction_atomic {
            mine[0]++;
            if (i % 64 == 0)
                shared++;
        }
    atomic_fetch_add(&done, 1);
    return NULL;
}

/* Until the workers are done: MADV_COLD over libitm's executable mappings, every millisecond. */
static void *age(void *arg)
{
    int n = (int)(long)arg;
    long rounds = 0;
    while (atomic_load(&done) < n) {
        FILE *f = fopen("/proc/self/maps", "r");
        char line[512];
        unsigned long lo, hi;
        char perm[8];
        while (f && fgets(line, sizeof line, f))
            if (strstr(line, "libitm") && sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) == 3 &&
                perm[2] == 'x' && madvise((void *)lo, hi - lo, MADV_COLD) != 0) {
                printf("SKIP: madvise(MADV_COLD): %s\n", strerror(errno));
                exit(77);
            }
        if (f)
            fclose(f);
        rounds++;
        usleep(1000);
    }
    if (rounds < 100) {
        printf("SKIP: the pages were aged only %ld times\n", rounds);
        exit(77);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    pthread_t t[64], a;
    pthread_barrier_init(&start, NULL, n);
    for (long k = 0; k < n; k++)
        pthread_create(&t[k], NULL, run, (void *)k);
    pthread_create(&a, NULL, age, (void *)(long)n);
    usleep(1000000);
    atomic_store(&stop, 1);
    long sum = 0, per = 0;
    for (int k = 0; k < n; k++) {
        pthread_join(t[k], NULL);
        sum += own[k][0];
        per += (own[k][0] + 63) / 64;
    }
    pthread_join(a, NULL);
    if (shared != per) {
        printf("lost increments: %ld of %ld\n", shared, per);
        return 1;
    }
    printf("%ld transactions\n", sum);
    return 0;
}
C
gcc -O2 -fgnu-tm -pthread "$d/aged.c" -o "$d/aged" -L"$BUILD/lib" -litm ||
    fail "the test program does not compile"
for n in 2 4; do
    env TMKIT_ALGO=htm TMKIT_STATS="$d/p$n.json" "$d/aged" $n > "$d/out$n" 2>&1
    rc=$?
    cat "$d/out$n"
    [ $rc = 77 ] && exit 77
    [ $rc = 0 ] || fail "aged htm at $n threads: exit status $rc"
    python3 - "$d/p$n.json" $n <<'PY'
import json, sys
prof = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
get = lambda k: sum(s[k] for s in prof["sites"])
tries = get("htm_commits") + get("htm_abort_conflict") + get("htm_abort_capacity") + \
    get("htm_abort_other")
if tries == 0:
    print("SKIP: RTM enumerated, but the runtime found it unusable")
    sys.exit(77)
# Attempts that ran while one thread transacted alone ran biased: neither lock nor hardware.
serial = get("serial_attempts")
if serial < get("commits") / 10:
    print(f"SKIP: the threads hardly ran at once ({serial} of {get('commits')} attempts)")
    sys.exit(77)
share = get("htm_commits") / serial
print(f"{n} threads, code aged every millisecond: {get('htm_commits')} of {serial} attempts "
      f"committed in hardware ({share:.1%}); {get('htm_abort_other')} aborts with no cause")
assert share >= 0.9, ("aged code sent the attempts to the lock", n, share)
PY
    rc=$?
    [ $rc = 77 ] && exit 77
    [ $rc = 0 ] || fail "aged htm at $n threads: profile check failed"
done

#!/bin/sh
# The htm mode remembers hardware failures per transaction site (core/htm.c: tm_htm_site), and
# the profile does not change where attempts run (core/begin.c: tm_begin_serial_counted).
# Each thread runs two sites: a tiny transaction on its own counter, which commits in hardware,
# and every 8th time a relaxed one that makes a system call, which aborts any hardware
# transaction and so always ends under the serial lock. Under TMKIT_ALGO=htm with the profile on, at 2
# threads and at 4 (more threads than cores):
#  - the tiny site commits at least 90% of its unbiased attempts in hardware (when the failures were
#    the thread's, one fallback at the other site sent it to the lock for up to 1023 attempts,
#    and with the profile on the serial path skipped the hardware whenever the thread changed
#    site: 13% in hardware in memcached);
#  - the system-call site tries the hardware on at most 1/8 of its attempts (its own back-off);
#  - every increment of both is there.
# Needs a CPU whose RTM transactions commit, and threads that run at once (a crowded machine
# runs them one after the other, biased; so did 200,000 transactions a thread, about 1 ms, now
# and then on an idle one): skipped (77) otherwise.
. "$(dirname "$0")/lib.sh"
htm_test_setup
cat > "$d/sites.c" <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define N 1000000
static long own[64][8];   /* a line per thread: the tiny site's counters */
static long calls;        /* the system-call site's, shared */
static pthread_barrier_t start; /* all threads transact at once (alone, one would run biased) */

static void *run(void *arg)
{
    long *mine = own[(long)arg];
    pthread_barrier_wait(&start);
    for (int i = 0; i < N; i++) {
        __transaction_atomic { mine[0]++; }
        if (i % 8 == 0)
            __transaction_relaxed { calls++; syscall(SYS_getppid); }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    pthread_t t[64];
    pthread_barrier_init(&start, NULL, n);
    for (long k = 0; k < n; k++)
        pthread_create(&t[k], NULL, run, (void *)k);
    long sum = 0;
    for (int k = 0; k < n; k++) {
        pthread_join(t[k], NULL);
        sum += own[k][0];
    }
    if (sum != (long)n * N || calls != (long)n * N / 8) {
        printf("lost increments: %ld of %ld, %ld of %ld\n", sum, (long)n * N, calls, (long)n * N / 8);
        return 1;
    }
    return 0;
}
C
gcc -O2 -fgnu-tm -pthread "$d/sites.c" -o "$d/sites" -L"$BUILD/lib" -litm ||
    fail "the test program does not compile"
# A run whose threads hardly overlapped (see above) is repeated, up to 3 times (crowded_retry).
check() { # check N: a run at N threads, then its profile check
  expect_rc 0 env TMKIT_ALGO=htm TMKIT_STATS="$d/p$1.json" "$d/sites" $1
  python3 - "$d/p$1.json" $1 <<'PY'
import json, sys
prof = json.load(open(sys.argv[1]))
n, per = int(sys.argv[2]), 1000000
sites = [s for s in prof["sites"] if s["commits"] in (n * per, n * per // 8)]
tries = lambda s: s["htm_commits"] + s["htm_abort_conflict"] + s["htm_abort_capacity"] + \
    s["htm_abort_other"]
assert len(sites) == 2, [(s["commits"], s["htm_commits"]) for s in prof["sites"]]
# Attempts that ran while the thread was the only one transacting ran biased, with no lock and
# no hardware transaction; the rest start on the serial path (serial_attempts).
if sum(s["serial_attempts"] for s in sites) < n * per / 10:
    print(f"the threads hardly ran at once ({[s['serial_attempts'] for s in sites]} of "
          f"{n * per} attempts)")
    sys.exit(78)
if sum(tries(s) for s in prof["sites"]) == 0:
    print("SKIP: RTM enumerated, but the runtime found it unusable")
    sys.exit(77)
tiny, call = sorted(sites, key=lambda s: -s["htm_commits"])
assert tiny["htm_commits"] >= 0.9 * tiny["serial_attempts"], ("tiny site in hardware", n, tiny)
assert call["htm_commits"] == 0, ("system-call site committed in hardware", n, call)
assert tries(call) <= call["commits"] / 8, ("system-call site kept trying the hardware", n, call)
print(f"{n} threads: tiny site {tiny['htm_commits']}/{tiny['serial_attempts']} in hardware; "
      f"system-call site tried it {tries(call)} times in {call['commits']}")
PY
}
for n in 2 4; do
  crowded_retry "htm sites at $n threads" check $n
done

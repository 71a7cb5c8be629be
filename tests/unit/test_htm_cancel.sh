#!/bin/sh
# The htm mode runs transactions that may cancel in hardware too (core/begin.c:
# tm_attempt_start; core/htm.c): a cancel of the outermost transaction aborts the hardware
# transaction, which is its rollback, and its begin returns as a cancel's would. What a cancel in
# hardware cannot do takes the software path: undo actions to run, a nested transaction that may
# cancel. Each thread runs three sites, under TMKIT_ALGO=htm with the profile on, at 2 threads
# and at 4 (more threads than cores):
#  - "cancels": a transfer between two words of the thread's own line, cancelled every 4th time,
#    and every 64th time an increment of a shared word: most of its cancels happen in hardware
#    (htm_cancels), every cancel is counted once (abort_cancel), and no cancelled write and no
#    cancelled change of a local variable is seen after it;
#  - "undo": registers an undo action, then cancels: never in hardware (the action must run,
#    once per cancel);
#  - "nested": an inner transaction that may cancel, cancelled every other time: the outer part
#    stays, the inner part does not.
# Needs a CPU whose RTM transactions commit, and threads that run at once: skipped (77)
# otherwise, as unit.htm_sites.
. "$(dirname "$0")/lib.sh"
htm_test_setup
cat > "$d/cancel.c" <<'C'
#include <tmkit/abi.h> /* _ITM_addUserUndoAction */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 400000
static long own[64][8];   /* a line per thread */
static long shared;       /* every 64th transfer that stays */
static long undone[64];   /* undo actions run, per thread */
static long bad_local[64];
static pthread_barrier_t start;

static void undo(void *arg) { undone[(long)arg]++; }

static void *run(void *arg)
{
    long t = (long)arg, *mine = own[t];
    pthread_barrier_wait(&start);
    for (int i = 0; i < N; i++) {
        long seen = 0;
        __transaction_atomic {
            mine[0]++;
            mine[1]--;
            seen = mine[0];
            if (i % 64 == 0)
                shared++;
            if (i % 4 == 3)
                __transaction_cancel;
        }
        if (i % 4 == 3 && seen != 0) /* the cancel restores the local too */
            bad_local[t]++;
        if (i % 16 == 5)
            __transaction_atomic {
                mine[2]++;
                _ITM_addUserUndoAction(undo, (void *)t);
                __transaction_cancel;
            }
        if (i % 8 == 1)
            __transaction_atomic {
                mine[3]++;
                __transaction_atomic {
                    mine[4]++;
                    if (i % 16 == 1)
                        __transaction_cancel;
                }
            }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    pthread_t th[64];
    pthread_barrier_init(&start, NULL, n);
    for (long k = 0; k < n; k++)
        pthread_create(&th[k], NULL, run, (void *)k);
    int bad = 0;
    for (int k = 0; k < n; k++) {
        pthread_join(th[k], NULL);
        long *m = own[k];
        if (m[0] != N / 4 * 3 || m[1] != -m[0] || m[2] != 0 || undone[k] != N / 16 ||
            m[3] != N / 8 || m[4] != N / 16 || bad_local[k] != 0) {
            printf("thread %d: %ld %ld %ld undone %ld %ld %ld locals %ld\n", k, m[0], m[1], m[2],
                   undone[k], m[3], m[4], bad_local[k]);
            bad = 1;
        }
    }
    if (shared != (long)n * (N / 64)) {
        printf("shared %ld, want %ld\n", shared, (long)n * (N / 64));
        bad = 1;
    }
    return bad;
}
C
gcc -O2 -fgnu-tm -pthread -I"$ROOT/include" "$d/cancel.c" -o "$d/cancel" -L"$BUILD/lib" -litm ||
    fail "the test program does not compile"
check() { # check N: a run at N threads, then its profile check
  expect_rc 0 env TMKIT_ALGO=htm TMKIT_STATS="$d/p$1.json" "$d/cancel" $1
  python3 - "$d/p$1.json" $1 <<'PY'
import json, sys
prof = json.load(open(sys.argv[1]))
n, per = int(sys.argv[2]), 400000
def site(commits, ends):  # the site of so many commits and so many ends (commits, cancels)
    found = [s for s in prof["sites"] if s["commits"] == commits and
             s["commits"] + s["abort_cancel"] == ends]
    assert len(found) == 1, (commits, ends,
                             [(s["commits"], s["abort_cancel"]) for s in prof["sites"]])
    return found[0]
# The nested site counts its inner cancels too (abort_cancel).
cancels = site(n * per // 4 * 3, n * per)
undo = site(0, n * per // 16)
nested = site(n * per // 8, n * per // 8 + n * per // 16)
if cancels["serial_attempts"] < n * per / 10:
    print(f"the threads hardly ran at once ({cancels['serial_attempts']} of {n * per})")
    sys.exit(78)
if cancels["htm_commits"] + cancels["htm_cancels"] == 0:
    print("SKIP: RTM enumerated, but no transaction ended in hardware")
    sys.exit(77)
assert cancels["htm_cancels"] >= 0.5 * cancels["abort_cancel"] * \
    cancels["serial_attempts"] / (n * per), ("cancels in hardware", n, cancels)
assert undo["htm_cancels"] == 0, undo
assert nested["htm_cancels"] == 0 and nested["htm_commits"] == 0, nested
print(f"{n} threads: {cancels['htm_cancels']} of {cancels['abort_cancel']} cancels and "
      f"{cancels['htm_commits']} of {cancels['commits']} commits in hardware")
PY
}
for n in 2 4; do
  crowded_retry "htm cancels at $n threads" check $n
done

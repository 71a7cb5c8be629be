#!/bin/sh
# The profile counts the htm mode's hardware-transaction tries (core/htm.c, counters htm_* of
# runtime/stats/stats.h), on a machine without Intel RTM as on one with it:
#  1. every RTM status goes to its counter (stats.h's tm_stats_htm_counter, compiled here);
#  2. TMKIT_HTM=simulate runs the hardware path with scripted aborts (a conflict that may succeed
#     on a retry, then a capacity abort): the contended site of prog_stats counts both, one each
#     per attempt that tried the hardware, and its counts stay exact (the attempts then take
#     the lock: starts = commits, every increment made);
#  3. with the hardware path off (TMKIT_HTM=off) nothing is counted there.
. "$(dirname "$0")/lib.sh"
export LD_LIBRARY_PATH=$BUILD/lib
scratch
cat > "$d/classify.c" <<'C'
#include <immintrin.h>
#include <stdio.h>
#include "stats/stats.h"
#define WANT(st, k) if (tm_stats_htm_counter(st) != TM_STAT_##k) { printf("%#x: not " #k "\n", st); bad = 1; }
int main(void)
{
    int bad = 0;
    WANT(TM_HTM_COMMITTED, htm_commits)
    WANT(_XABORT_CONFLICT | _XABORT_RETRY, htm_abort_conflict)
    WANT(_XABORT_CONFLICT, htm_abort_conflict)
    WANT(_XABORT_CAPACITY, htm_abort_capacity)
    WANT(_XABORT_EXPLICIT | (unsigned)TM_HTM_LOCKED << 24, htm_abort_lock)
    WANT(_XABORT_EXPLICIT | (unsigned)TM_HTM_SOFTWARE << 24, htm_abort_other)
    WANT(0u, htm_abort_other) /* an interrupt, a system call */
    WANT(_XABORT_RETRY, htm_abort_other)
    return bad;
}
C
gcc -O1 -I"$ROOT/runtime" -include "$ROOT/runtime/core/libc_rename.h" "$d/classify.c" \
    -o "$d/classify" || fail "the classification does not compile"
"$d/classify" || fail "RTM statuses counted under the wrong counters"

for mode in simulate off; do
    expect_rc 0 env TMKIT_ALGO=htm TMKIT_HTM=$mode TMKIT_STATS=$d/$mode.json "$STATS_PROG" \
        "$d/$mode.count"
    python3 - "$d/$mode.json" "$d/$mode.count" "$mode" <<'PY' || fail "htm $mode: profile check failed"
import json, sys
path, count_file, mode = sys.argv[1:]
prof = json.load(open(path))
names = ("htm_commits", "htm_abort_conflict", "htm_abort_capacity", "htm_abort_lock",
         "htm_abort_other")
assert all(n in prof["counters"] for n in names), prof["counters"]
tot = {n: sum(s[n] for s in prof["sites"]) for n in names}
if mode == "off":
    assert not any(tot.values()), tot
    sys.exit(0)
# The two threads' counter: its attempts start on the serial path, each that tries the hardware
# counts its scripted pair of aborts and then takes the lock.
h = max(prof["sites"], key=lambda s: s["htm_abort_conflict"])
increments = int(open(count_file).read())
assert h["commits"] == increments and h["starts"] == h["commits"], (increments, h)
assert h["htm_abort_conflict"] >= 1 and h["htm_abort_conflict"] == h["htm_abort_capacity"], h
assert h["htm_abort_conflict"] <= h["serial_attempts"], h
assert tot["htm_commits"] == tot["htm_abort_lock"] == tot["htm_abort_other"] == 0, tot
PY
done
echo "htm_stats: ok"

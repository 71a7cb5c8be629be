#!/bin/sh
# Adaptive's choice when threads poll in read-only transactions until another writes (core/cm.c,
# tm_cm_price): a token passed round 2 threads that wait for it by reading it in one-load
# transactions (bench micro --mode ring). Per commit, serial mode looks cheapest there, since its
# pollers run GCC's uninstrumented code; per writing commit, the figure adaptive compares first,
# serial mode with the lock's turns (with or without bias grants) passed the token ~15x slower
# than gl_wt (7,000-12,000 against 550-1,500 cycles a hand-off; 27e0787's runtime, which probed
# serial mode with the grants only, stayed out of it for all but 2-18 of ~970 epochs). With the
# plain lock (core/cm_decide.c: tm_cm_probe_lock tries it) a waiter takes the lock at the
# holder's first commit, and serial mode passes the token as fast as gl_wt (0.5-2.6K cycles a
# hand-off, runs that stayed in it for 800 of 970 epochs made 4.9M hand-offs/s, gl_wt's best),
# so adaptive may keep either. Checked: the run's invariant, that both figures are reported, and,
# in a run where both were measured for gl_wt and serial, that the turns (serial epochs not on
# the plain lock) ran at most a quarter of the epochs.
# On a crowded machine (more runnable threads than cores) the pollers take the token owner's
# core and hand-offs fall to hundreds a second; serial mode, whose waiters then sleep, is the
# right choice there. So a try counts only if 2 cores were free before and after adaptive's
# run: the mutex build passes the token at 0.5M hand-offs/s or more in 0.3 s (0.6-1.1M on this VM
# when quiet, 0.0001-0.36M beside two CPU hogs). Up to 3 tries; if none counted, or adaptive's
# run did not measure both figures, the test is skipped (77), not passed.
. "$(dirname "$0")/lib.sh"
export LD_LIBRARY_PATH=$BUILD/lib
prog=$BUILD/bin/micro-tm
[ -x "$prog" ] || fail "no $prog"
scratch
quiet() { # quiet WHEN: are 2 cores free? (the mutex build's hand-off rate)
    cal=$(timeout 60 "$BUILD/bin/micro-mutex" --mode ring --threads 2 --seconds 0.3 2>&1) ||
        fail "mutex ring run failed: $cal"
    rate=$(echo "$cal" | sed -n 's/.* ops_per_s=\([0-9]*\).*/\1/p')
    [ "${rate:-0}" -ge 500000 ] && return 0
    echo "run $try: machine crowded $1 (mutex ${rate:-?} hand-offs/s)"
    sleep 1
    return 1
}
for try in 1 2 3; do
    quiet before || continue
    out=$(TMKIT_ALGO=adaptive TMKIT_STATS=$d/ring.json timeout 60 \
          "$prog" --mode ring --threads 2 --seconds 1.5 2>&1) || fail "ring run failed: $out"
    case "$out" in *" ok=1"*) ;; *) fail "ring invariant: $out" ;; esac
    python3 - "$d/ring.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
e, w = p["adaptive_epochs"], p["adaptive_cycles_per_writing_commit"]
c = p["adaptive_cycles_per_commit"]
assert c["gl_wt"] > 0 and c["serial"] > 0, ("per-commit cost not measured", c)
if not (w["gl_wt"] > 0 and w["serial"] > 0):
    sys.exit(77)  # not measured: a crowded machine (see the top)
turns = e["serial"] - p["adaptive_plain_epochs"]
assert turns * 4 <= sum(e.values()), ("serial mode ran on the lock's turns", turns, e, w)
PY
    rc=$?
    case $rc in
        0) echo "adaptive on the ring: few epochs on the serial lock's turns (run $try)"
           exit 0 ;;
        77) rate=$(echo "$out" | grep -o 'ops_per_s=[0-9]*')
            echo "run $try: per-writing cost not measured ($rate)" ;;
        *) quiet after || continue
           fail "adaptive on the ring: $(head -c 900 "$d/ring.json")" ;;
    esac
done
echo "SKIP: the machine was too crowded to measure in 3 runs"
exit 77

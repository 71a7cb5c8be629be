#!/bin/sh
# The serial lock's hand-off (core/serial_handoff.c) under preemption: short runs of 2 threads
# reading under adaptive, which moves between its serial mode (where waiters ask the holder for
# the lock) and gl_wt (whose transactions wait for the lock to be free), with two CPU hogs
# beside them so that threads are preempted between an unlock and its hand-over. A hand-over
# of a lock that someone had taken and freed since the unlock left the word handed to nobody
# and every later transaction waiting for it: 4 of 150 such runs hung before that was fixed
# (2026-11-26). Every run must end (10 s each) with its invariant held.
. "$(dirname "$0")/lib.sh"
export LD_LIBRARY_PATH=$BUILD/lib
prog=$BUILD/bin/micro-tm
[ -x "$prog" ] || fail "no $prog"
hog() { while :; do :; done; }
hog & h1=$!
hog & h2=$!
trap 'kill $h1 $h2 2>/dev/null' EXIT
i=0
while [ $i -lt 120 ]; do
    out=$(timeout 10 "$prog" --mode reads --n 16 --threads 2 --seconds 0.03 2>&1)
    rc=$?
    [ $rc = 124 ] && fail "run $i hung (over 10 s): adaptive, reads-16, 2 threads"
    [ $rc = 0 ] || fail "run $i exited $rc: $out"
    case "$out" in *" ok=1"*) ;; *) fail "run $i: $out" ;; esac
    i=$((i + 1))
done
echo "serial hand-off: 120 preempted runs ended"

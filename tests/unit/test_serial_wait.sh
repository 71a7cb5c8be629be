#!/bin/sh
# TMKIT_SERIAL_WAIT decides how a thread waits for the serial lock (core/serial_wait.c): `sleep`
# (the default) sleeps passively with raw nanosleep calls before it registers; `block`
# registers at once and never calls nanosleep. A preload shim counts those calls while 4
# threads contend under serialirr (every transaction takes the serial lock); the counters are
# checked by the program either way.
. "$(dirname "$0")/lib.sh"
export LD_LIBRARY_PATH=$BUILD/lib
sleeps() { echo "$ERR" | sed -n 's/^count_sleeps: //p'; }
# Each run is longer than the last: on a loaded machine (CI) 4 short threads may run one
# after another without ever meeting.
for iters in 200000 1000000 5000000; do
    expect_rc 0 env TMKIT_ALGO=serialirr LD_PRELOAD="$SLEEPS_SHIM" "$PROG" $iters 4
    n=$(sleeps)
    [ -n "$n" ] || fail "no count from the shim: $ERR"
    [ "$n" -gt 0 ] && break
done
[ "$n" -gt 0 ] || fail "default (sleep): 4 contending threads never slept passively in 3 runs"
expect_rc 0 env TMKIT_ALGO=serialirr TMKIT_SERIAL_WAIT=sleep LD_PRELOAD="$SLEEPS_SHIM" "$PROG" 200000 4
for a in serialirr adaptive; do
    expect_rc 0 env TMKIT_ALGO=$a TMKIT_SERIAL_WAIT=block LD_PRELOAD="$SLEEPS_SHIM" "$PROG" 200000 4
    [ "$(sleeps)" = 0 ] || fail "TMKIT_SERIAL_WAIT=block, $a: $(sleeps) passive sleeps"
done
echo "serial wait: ok ($n passive sleeps by default)"

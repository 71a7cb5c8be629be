#!/bin/sh
# Bad configuration stops the program at start-up with a message listing the valid values;
# good configuration runs silently.
. "$(dirname "$0")/lib.sh"
export LD_LIBRARY_PATH=$BUILD/lib
for a in $ALGOS; do
    expect_rc 0 env TMKIT_ALGO=$a "$PROG" 2000
    [ -z "$ERR" ] || fail "TMKIT_ALGO=$a printed: $ERR"
done
expect_rc 2 env TMKIT_ALGO=nope "$PROG"
echo "$ERR" | grep -q "TMKIT_ALGO='nope'" || fail "no mention of the bad value: $ERR"
for a in $ALGOS; do echo "$ERR" | grep -q "$a" || fail "valid value $a not listed: $ERR"; done
expect_rc 2 env "TMKIT_ALGO=norec junk" "$PROG"
expect_rc 2 env TMKIT_ALGO= "$PROG"
expect_rc 2 env TMKIT_MAX_RETRIES=12x "$PROG"
echo "$ERR" | grep -q "1 to 1000000" || fail "range not given: $ERR"
expect_rc 2 env TMKIT_MAX_RETRIES=0 "$PROG"
expect_rc 2 env TMKIT_MAX_RETRIES=-3 "$PROG"
expect_rc 0 env TMKIT_MAX_RETRIES=1 "$PROG" 2000
expect_rc 2 env TMKIT_STATS_STRIDE=65537 "$PROG"
echo "$ERR" | grep -q "TMKIT_STATS_STRIDE='65537' is out of range or not a number; valid: an integer from 0 to 65536" ||
    fail "bad stride not reported: $ERR"
expect_rc 2 env TMKIT_PRIVATIZATION=maybe "$PROG"
echo "$ERR" | grep -q "valid: auto, quiesce, off" || fail "choices not listed: $ERR"
expect_rc 0 env TMKIT_PRIVATIZATION=off "$PROG" 2000
expect_rc 0 env TMKIT_PRIVATIZATION=auto "$PROG" 2000
expect_rc 0 env TMKIT_PRIVATIZATION=quiesce "$PROG" 2000
expect_rc 2 env TMKIT_SERIAL_WAIT=spin "$PROG"
echo "$ERR" | grep -q "TMKIT_SERIAL_WAIT='spin'.*valid: sleep, block" || fail "serial wait choices not listed: $ERR"
for w in sleep block; do
    expect_rc 0 env TMKIT_ALGO=serialirr TMKIT_SERIAL_WAIT=$w "$PROG" 20000 4
    [ -z "$ERR" ] || fail "TMKIT_SERIAL_WAIT=$w printed: $ERR"
done
expect_rc 2 env TMKIT_ADAPTIVE_MODES=redo "$PROG"
echo "$ERR" | grep -q "TMKIT_ADAPTIVE_MODES='redo'.*valid: write-through, all" || fail "adaptive mode sets not listed: $ERR"
for m in write-through all; do
    expect_rc 0 env TMKIT_ADAPTIVE_MODES=$m "$PROG" 20000 3
    [ -z "$ERR" ] || fail "TMKIT_ADAPTIVE_MODES=$m printed: $ERR"
done
for v in 1 0 on YES; do
    expect_rc 2 env TMKIT_STATS=$v "$PROG"
    echo "$ERR" | grep -q "TMKIT_STATS='$v' looks like a switch, not a file path" ||
        fail "TMKIT_STATS=$v not refused: $ERR"
done
expect_rc 2 env TMKIT_ALOG=norec "$PROG"
echo "$ERR" | grep -q "unknown configuration variable TMKIT_ALOG" || fail "typo not reported: $ERR"
echo "$ERR" | grep -q "TMKIT_ALGO" || fail "known variables not listed: $ERR"
# Found by tests/fuzz (fuzz_config): white space before a number was taken (strtoul skips it) ...
expect_rc 2 env "TMKIT_MAX_RETRIES= 5" "$PROG"
expect_rc 2 env "$(printf 'TMKIT_STATS_STRIDE=\v6')" "$PROG"
# ... and a value over about 1000 bytes overflowed the message buffer (regressions/config/)
long=$(printf '%01100d' 0 | tr 0 x)
expect_rc 2 env "TMKIT_ALGO=$long" "$PROG"
echo "$ERR" | grep -q "TMKIT_ALGO='xxxxxxxx*\.\.\.' is not a known algorithm; valid: " ||
    fail "long value not reported in one line: $ERR"
echo "config: ok"

#!/bin/sh
# Without membarrier(2) tmkit has no single-thread bias (core/bias.c): a lone thread takes the
# serial lock like any other. no_membarrier runs the program under a seccomp filter that fails
# that system call. Under every algorithm, 1 and 3 threads keep the counters exact
# (prog_counter checks them); under serialirr at 1 thread every attempt is then a serial one,
# where with membarrier none is (the bias takes them all).
. "$(dirname "$0")/lib.sh"
scratch
for algo in $ALGOS; do
    for t in 1 3; do
        expect_rc 0 env LD_LIBRARY_PATH="$BUILD/lib" TMKIT_ALGO="$algo" "$NOMB_PROG" "$PROG" 20000 $t
    done
done
serial_share() { # serial_share PROFILE: serial attempts / starts, over the sites
    python3 - "$1" <<'PY'
import json, sys
sites = json.load(open(sys.argv[1]))["sites"]
print(sum(s["serial_attempts"] for s in sites) / max(1, sum(s["starts"] for s in sites)))
PY
}
expect_rc 0 env LD_LIBRARY_PATH="$BUILD/lib" TMKIT_ALGO=serialirr TMKIT_STATS="$d/no.json" \
    "$NOMB_PROG" "$PROG" 20000 1
[ "$(serial_share "$d/no.json")" = "1.0" ] || fail "without membarrier, serialirr at 1 thread ran biased: $(head -c 400 "$d/no.json")"
expect_rc 0 env LD_LIBRARY_PATH="$BUILD/lib" TMKIT_ALGO=serialirr TMKIT_STATS="$d/mb.json" "$PROG" 20000 1
[ "$(serial_share "$d/mb.json")" = "0.0" ] || fail "with membarrier, serialirr at 1 thread did not run biased: $(head -c 400 "$d/mb.json")"
echo "no_membarrier: ok"

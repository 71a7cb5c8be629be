#!/bin/sh
# TMKIT_BIAS (core/bias.c): with a second thread registered but idle, a thread running serial
# transactions takes the bias after a streak (rotate, the default) and its transactions stop
# taking the serial lock; with `single` the bias belongs only to the process's only transacting
# thread, so every one of them takes the lock. prog_bias then makes both threads transact
# again (the bias goes back and forth) and checks the counter. The statistics count serial
# attempts per site (serial_attempts); site A is the one with the most starts.
. "$(dirname "$0")/lib.sh"
export LD_LIBRARY_PATH=$BUILD/lib
scratch
# N: adaptive runs its first epoch (~1.5 ms) in gl_wt before it probes the serial mode, which
# the bias then keeps; at 100,000 transactions that first epoch was half the run on a fast
# machine (49% uninstrumented: a failure in 1 run of 2), at 400,000 it is 12%.
N=400000
shares() { # shares FILE: site A's serial and uninstrumented attempts, percent of its starts
    python3 - "$1" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
a = max(p["sites"], key=lambda s: s["starts"])
print(100 * a["serial_attempts"] // a["starts"], 100 * a["uninstrumented_attempts"] // a["starts"])
PY
}
# serialirr: every transaction is serial or biased. adaptive may also run speculative epochs
# (gl_wt, orec_eager probes) before the grant, and with `single` it does, so only rotate's
# outcome is fixed there: mostly biased (uninstrumented, not serial).
expect_rc 0 env TMKIT_ALGO=serialirr TMKIT_STATS="$d/single.json" TMKIT_BIAS=single "$BIAS_PROG" $N 20000
set -- $(shares "$d/single.json"); s=$1
[ "$s" -ge 95 ] || fail "serialirr, TMKIT_BIAS=single: only $s% of the lone thread's transactions serial"
for algo in serialirr adaptive; do
    expect_rc 0 env TMKIT_ALGO=$algo TMKIT_STATS="$d/rotate.json" "$BIAS_PROG" $N 20000
    set -- $(shares "$d/rotate.json"); r=$1; u=$2
    [ "$r" -le 5 ] && [ "$u" -ge 50 ] ||
        fail "$algo, TMKIT_BIAS=rotate: of the lone thread's transactions $r% serial, $u% uninstrumented"
done
# Both threads transacting, under the fixed algorithms too: the counter only.
for algo in serialirr adaptive gl_wt orec_eager; do
    expect_rc 0 env TMKIT_ALGO=$algo "$BIAS_PROG" 200000 200000
done
echo "bias: ok (lone thread serial: $r% rotate, $s% single under serialirr)"

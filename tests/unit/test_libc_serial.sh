#!/bin/sh
# The profile's serializing-call column (issue 21): relaxed transactions calling snprintf,
# strlen, strtol and strcmp go serial-irrevocable at the call when built plain (the report
# names the call's line), and none does when the file includes <tmkit.h>, whose wrappers GCC
# calls instead. Same checksum both ways, under every algorithm, 2 threads.
. "$(dirname "$0")/lib.sh"
export LD_LIBRARY_PATH=$BUILD/lib
scratch
line=$(grep -n LIBC_CALL "$ROOT/tests/unit/prog_libc.c" | cut -d: -f1)
N=100000
for algo in $ALGOS; do
    expect_rc 0 env TMKIT_ALGO=$algo TMKIT_STATS="$d/plain.json" "$LIBC_PLAIN" $N 2
    a=$(env TMKIT_ALGO=$algo "$LIBC_PLAIN" $N 2)
    expect_rc 0 env TMKIT_ALGO=$algo TMKIT_STATS="$d/wrapped.json" "$LIBC_WRAPPED" $N 2
    b=$(env TMKIT_ALGO=$algo "$LIBC_WRAPPED" $N 2)
    [ "$a" = "$b" ] || fail "$algo: checksums differ: plain $a, with tmkit.h $b"
    python3 - "$d/plain.json" "$d/wrapped.json" $((2 * N)) $algo <<'PY' || fail "$algo: profiles: $(head -c 800 "$d/plain.json")"
import json, sys
plain, wrapped, n = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
algo = sys.argv[4]
def total(p, k):
    return sum(s.get(k, 0) for s in p["sites"])
assert total(plain, "commits") >= n and total(wrapped, "commits") >= n, "commits"
# plain: 3 in 4 transactions call libc; each that ran instrumented switched there (one that
# began serial-irrevocable, as every one does under serialirr and htm, or ran alone under the
# single-thread bias, uninstrumented, needs no switch)
sw, ser = total(plain, "irrevocable_switches"), total(plain, "serial_attempts")
assert sw > 0 or algo in ("serialirr", "htm"), ("plain: nothing serialized", sw, ser)
assert total(wrapped, "irrevocable_switches") == 0, "wrapped: switched"
PY
    case $algo in serialirr|htm) continue ;; esac # every transaction starts serial: no switch
    out=$("$ROOT/bin/tmkit" report "$d/plain.json")
    echo "$out" | grep -Eq "serialized by worker \(prog_libc.c:$line\)" ||
        fail "$algo: report does not name the call (prog_libc.c:$line):
$out"
done
for algo in $ALGOS; do # the wrapped build never names a serializing call
    expect_rc 0 env TMKIT_ALGO=$algo TMKIT_STATS="$d/wrapped.json" "$LIBC_WRAPPED" $N 4
    out=$("$ROOT/bin/tmkit" report "$d/wrapped.json")
    echo "$out" | grep -q "serialized by" && fail "$algo: wrapped build serialized:
$out"
done
echo "ok: plain build serialized at prog_libc.c:$line, wrapped build never, under: $ALGOS"

#!/bin/sh
# The standalone experiments' drivers (tools/tmkit_cli/bench/: prime, costs, waits) in their
# --quick form: exit 0, a summary with every configuration's row and a CSV; bad options refused;
# and the results layout (layout.py, bench/results/CONVENTIONS.md): context.json names the run's
# files, a new run removes what the previous one wrote and this one did not, README.md stays.
. "$(dirname "$0")/lib.sh"
scratch
T="$ROOT/bin/tmkit"
expect_rc 0 "$T" bench prime --quick --out "$d/prime"
for w in 1 2 4; do
    grep -Eq "^\| $w \| [0-9.]+ \([0-9.]+x\) \| [0-9.]+ .*\| [0-9.]+ \| [0-9.]+ \|$" "$d/prime/summary.md" ||
        fail "prime: no row for $w workers: $(cat "$d/prime/summary.md")"
done
[ "$(wc -l < "$d/prime/runs.csv")" -eq 16 ] || fail "prime: expected 15 runs: $(cat "$d/prime/runs.csv")"
expect_rc 0 "$T" bench costs --quick --out "$d/costs"
for op in empty read write nested-flat atomic-out ref-atomic-in; do
    grep -Eq "\(\`$op\`\) \| [0-9.]+ / - \|" "$d/costs/summary.md" ||
        fail "costs: no row for $op: $(cat "$d/costs/summary.md")"
done
grep -q "Failed runs" "$d/costs/summary.md" && fail "costs: failed runs: $(cat "$d/costs/summary.md")"
python3 - "$d/costs/context.json" <<'PY' || fail "costs: context.json: see above"
import json, sys
c = json.load(open(sys.argv[1]))
for k in ("experiment", "command", "date", "commit", "machine", "toolchain"):
    assert c.get(k), (k, c)
assert sorted(c["files"]) == ["costs.csv", "summary.md"], c["files"]
assert c["command"] == f"bin/tmkit bench costs --quick --out {sys.argv[1].rsplit('/', 1)[0]}", c
c["files"].append("old-plot.png")
json.dump(c, open(sys.argv[1], "w"))
PY
echo stale > "$d/costs/old-plot.png"; echo mine > "$d/costs/README.md"; echo other > "$d/costs/notes.txt"
expect_rc 0 "$T" bench costs --quick --ops empty --out "$d/costs"
[ -e "$d/costs/old-plot.png" ] && fail "costs: the previous run's old-plot.png was left behind"
[ "$(cat "$d/costs/README.md")" = mine ] || fail "costs: README.md was touched"
[ -e "$d/costs/notes.txt" ] || fail "costs: a file no run wrote was removed"
expect_rc 2 "$T" bench costs --quick --experiment 2026-01-01-costs
expect_rc 2 "$T" bench --quick --experiment Bad/Name
expect_rc 2 "$T" bench prime --repeats 0
expect_rc 2 "$T" bench costs --bogus
expect_rc 2 "$T" bench waits --repeats -1
# Another build of the runtime beside this one (--with-runtime NAME=LIBDIR): its configurations
# run and are reported; a bad specification or a directory without the library is refused.
expect_rc 2 "$T" bench micro --quick --with-runtime nolibdir
echo "$ERR" | grep -q "bad --with-runtime 'nolibdir'" || fail "--with-runtime without =: $ERR"
expect_rc 2 "$T" bench micro --quick --with-runtime other="$d/none"
echo "$ERR" | grep -q "no libitm.so.1 in" || fail "--with-runtime without a library: $ERR"
expect_rc 2 "$T" bench micro --quick --with-runtime tmkit="$BUILD/lib"
mkdir "$d/gcc" && ln -s "$(gcc -print-file-name=libitm.so.1)" "$d/gcc/libitm.so.1"
expect_rc 2 "$T" bench micro --quick --with-runtime gcc="$d/gcc"
echo "$ERR" | grep -q "do not load tmkit from $d/gcc" || fail "--with-runtime with GCC's libitm: $ERR"
expect_rc 0 "$T" bench micro --quick --no-callgrind --no-plots --with-runtime other="$BUILD/lib" \
    --configs tmkit-gl_wt,other-gl_wt --out "$d/variant"
n=$(grep -c ",other-gl_wt," "$d/variant/results.csv")
[ "$n" -eq 22 ] || fail "--with-runtime: $n rows of other-gl_wt in results.csv, not 22 (11 cases x 2 threads)"
echo "bench drivers: ok"

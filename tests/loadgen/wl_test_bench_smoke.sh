#!/bin/sh
# `tmkit bench webcache` end to end with tiny runs: every build at 1 thread for s = 2 and one
# wrk cross-check; results.csv, runs.csv, crosscheck.csv and summary.md are written.
# Plots only if the project venv already has matplotlib (the test installs nothing).
ROOT=${1:?usage: wl_test_bench_smoke.sh ROOT BUILD}
BUILD=${2:?usage: wl_test_bench_smoke.sh ROOT BUILD}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
plots=--no-plots
if [ -x "$ROOT/.venv/bin/python" ] && "$ROOT/.venv/bin/python" -c "import matplotlib" 2>/dev/null; then
    plots=""
fi
fail() { echo "FAIL: $*" >&2; cat "$out/log" >&2; exit 1; }
"$ROOT/bin/tmkit" bench webcache --quick --build "$BUILD" --out "$out" --s 2 --threads 1 \
    --warmup 0.2 --duration 0.3 $plots >"$out/log" 2>&1 || fail "tmkit bench webcache exited $?"
for f in results.csv runs.csv crosscheck.csv summary.md; do
    [ -s "$out/$f" ] || fail "$f missing or empty"
done
for b in nocache lock tm-tmkit tm-libitm; do
    grep -q "^2.0,1,$b,1,0,[0-9]" "$out/results.csv" || fail "no successful s=2 row for $b"
done
grep -q "^| 1 | [0-9]" "$out/summary.md" || fail "summary.md lacks a 1-thread row"
grep -q "^| 2 | lock | 1 |" "$out/summary.md" || fail "summary.md lacks the s=2 cross-check"
# The tm build on tmkit reported its transactions.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
          $col["build"] == "tm-tmkit" && $col["tm_starts"] > 0 { found = 1 }
          END { exit !found }' "$out/runs.csv" \
    || fail "no tm_starts for tm-tmkit in runs.csv"
if [ -z "$plots" ]; then
    [ -s "$out/throughput.png" ] && [ -s "$out/latency.png" ] || fail "plots missing"
fi
echo "bench webcache smoke: ok"

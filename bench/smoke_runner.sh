#!/bin/sh
# `tmkit bench micro --quick --out DIR` runs every configuration and writes a non-empty
# results.csv and summary.md. Plots are made only if the project venv already has matplotlib
# (the test does not install anything).
ROOT=${1:?usage: smoke_runner.sh ROOT}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
plots=--no-plots
if [ -x "$ROOT/.venv/bin/python" ] && "$ROOT/.venv/bin/python" -c "import matplotlib" 2>/dev/null; then
    plots=""
fi
fail() { echo "FAIL: $*" >&2; cat "$out/log" >&2; exit 1; }
"$ROOT/bin/tmkit" bench micro --quick --out "$out" $plots >"$out/log" 2>&1 || fail "tmkit bench exited $?"
for f in results.csv summary.md runs.csv; do
    [ -s "$out/$f" ] || fail "$f missing or empty"
done
grep -q "^micro,empty,micro,--mode empty,1,mutex,1,0," "$out/results.csv" || fail "no mutex row for micro empty"
grep -q "^| disjoint | 2 |" "$out/summary.md" || fail "summary.md lacks the disjoint 2-thread row"
if [ -z "$plots" ]; then
    [ -s "$out/throughput-2t.png" ] || fail "no throughput-2t.png"
fi
echo "bench runner: ok"

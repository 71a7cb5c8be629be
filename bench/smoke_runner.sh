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
fail() { echo "FAIL: $*" >&2; cat "$out/log" >&2; [ -z "${stats_pid:-}" ] || kill $stats_pid 2>/dev/null; exit 1; }
# The --with-stats run (checked below) runs beside the first: neither checks a throughput, and
# together they take about the first one's time (26 + 10 s one after the other).
"$ROOT/bin/tmkit" bench micro --quick --repeats 2 --with-stats --no-callgrind --no-plots \
    --configs tmkit-adaptive,tmkit-adaptive+stats --out "$out/s" >"$out/s.log" 2>&1 &
stats_pid=$!
"$ROOT/bin/tmkit" bench micro --quick --out "$out" $plots >"$out/log" 2>&1 || fail "tmkit bench exited $?"
for f in results.csv summary.md runs.csv; do
    [ -s "$out/$f" ] || fail "$f missing or empty"
done
grep -q "^micro,empty,micro,--mode empty,1,mutex,1,0," "$out/results.csv" || fail "no mutex row for micro empty"
grep -q "^| disjoint | 2 |" "$out/summary.md" || fail "summary.md lacks the disjoint 2-thread row"
grep -Eq "^Floor under any barrier .*only loads costs [0-9]+\.[0-9]{2} ns per access, one that only stores [0-9]+\.[0-9]{2} ns" "$out/summary.md" || fail "summary.md lacks the call floor"
if [ -z "$plots" ]; then
    [ -s "$out/throughput-2t.png" ] || fail "no throughput-2t.png"
fi
# Every run reports how evenly its threads shared the work; a 1-thread run shares it all.
python3 - "$out" <<'PY' || fail "min_share"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/runs.csv")))
for r in rows:
    s = float(r["min_share"])
    assert 0 <= s <= 1.0005, r
    assert int(r["threads"]) > 1 or s > 0.999, r
text = open(sys.argv[1] + "/summary.md").read()
assert "## Work shared among threads" in text and "| mutex | " in text, text
PY
# --with-stats: the overhead section pairs each repeat's run with statistics with the same
# repeat's run without (tools/tmkit_cli/bench/overhead.py): every case gets a ratio at both thread counts.
wait $stats_pid || { rc=$?; cp "$out/s.log" "$out/log"; fail "tmkit bench --with-stats exited $rc"; }
cp "$out/s.log" "$out/log"
grep -q "^## Statistics overhead: tmkit-adaptive+stats / tmkit-adaptive" "$out/s/summary.md" || fail "no overhead section"
grep -Eq "^\| counter \| [0-9]+\.[0-9]{2} \| [0-9]+\.[0-9]{2} \| - \|$" "$out/s/summary.md" || fail "no paired ratios for counter: $(grep '^| counter |' "$out/s/summary.md")"
# Pairs are made within a repeat: a repeat missing either run is left out.
PYTHONPATH="$ROOT/tools" python3 - <<'PY' || fail "paired_ratio"
from types import SimpleNamespace
from tmkit_cli.bench.overhead import paired_ratio
res = SimpleNamespace(by_repeat={("c", 1, "a+stats"): {0: 90.0, 1: 50.0, 2: 99.0},
                                 ("c", 1, "a"): {0: 100.0, 1: 50.0, 3: 10.0}})
r = paired_ratio(res, ("c", 1, "a+stats"), "a")
assert abs(r - 0.95) < 1e-9, r  # pairs 0 and 1 only: 0.9 and 1.0
assert paired_ratio(res, ("c", 2, "a+stats"), "a") is None
PY
# A run past its time limit is killed, and its threads' stacks are saved first (gdb) and named.
# TMPDIR: the stacks' directory (tmkit-hangs under the temporary directory) is made in $out,
# which the trap removes, not in /tmp.
TMPDIR="$out" PYTHONPATH="$ROOT/tools" python3 - "$out" <<'PY' || fail "run_limited"
import os, shutil
import sys
from tmkit_cli.bench.hang import run_limited
rc, out, err = run_limited(["sh", "-c", "echo x=1; exec sleep 30"], dict(os.environ), 1)
assert rc is None and out == "x=1\n" and err.startswith("timeout after 1 s"), (rc, out, err)
if shutil.which("gdb"):
    path = err.split("thread stacks in ")[1]
    assert path.startswith(sys.argv[1] + "/tmkit-hangs/"), path
    text = open(path).read()
    assert text.startswith("command: sh -c") and "sleep" in text, text
    os.remove(path)
assert run_limited(["sh", "-c", "echo y=2; exit 3"], dict(os.environ), 10)[:2] == (3, "y=2\n")
PY
echo "bench runner: ok"

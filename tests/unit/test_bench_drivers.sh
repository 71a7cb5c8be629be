#!/bin/sh
# The standalone experiments' drivers (tools/tmkit_cli/bench/: prime, costs, waits) in their
# --quick form: exit 0, a summary with every configuration's row and a CSV; bad options refused.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
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
expect_rc 2 "$T" bench prime --repeats 0
expect_rc 2 "$T" bench costs --bogus
expect_rc 2 "$T" bench waits --repeats -1
echo "bench drivers: ok"

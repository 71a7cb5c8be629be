#!/bin/sh
# fault_figures.sh: runs the fault tests (ctest -L fault: tests/fault/, docs/reliability.md
# "Faults") and writes what each fault produced under each algorithm, one block per test with
# the figure lines the programs print, to bench/results/fault/fault.txt (or the file named).
#
# Usage: bench/scripts/fault_figures.sh [BUILD_DIR] [OUT]
set -eu
build=${1:-build}
out=${2:-bench/results/fault/fault.txt}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
(cd "$build" && ctest -L fault -j 2 -V) > "$log" 2>&1 || status=$?
# "N: fault_x: ..." lines belong to the test that "Test #N: NAME" names; blocks sorted by name.
awk '
  /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: / {
    n = $0; sub(/.*Test +#/, "", n); split(n, a, ": "); split(a[2], b, " ")
    name[a[1]] = b[1]; res[a[1]] = ($0 ~ /Passed/) ? "passed" : "FAILED"
  }
  /^[0-9]+: fault_[a-z]+: / {
    k = $0; sub(/:.*/, "", k); line = $0; sub(/^[0-9]+: /, "", line)
    figs[k] = figs[k] "\t" line "\n"
  }
  END { for (k in name) printf "%s %s\n%s", name[k], res[k], figs[k] }' "$log" |
  awk '/^fault\./ { key = $1 } { print key "\001" NR "\001" $0 }' | sort -t "$(printf '\001')" -k1,1 -k2,2n |
  awk -F "$(printf '\001')" '{ print $3 }' > "$out"
grep -E "tests passed|Total Test time" "$log" >> "$out" || true
echo "wrote $out"
exit $status

#!/bin/sh
# A memcached-sized program (8 files, ~8,600 lines, 336 sections (outermost lock regions; 504
# acquisitions), from gen_large.py): the
# analysis must finish in seconds, and its rewrite must compile with every section agreeing
# with GCC. Prints the timings (docs/advise.md records them).
ROOT=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
python3 "$ROOT/tests/advise/gen_large.py" "$T" || exit 1
start=$(date +%s.%N)
"$ROOT/bin/tmkit" advise -p "$T" --json -o "$T/report.json" || { echo "FAIL: advise"; exit 1; }
end=$(date +%s.%N)
"$ROOT/bin/tmkit" advise -p "$T" --verify -o "$T/verify.txt" || { echo "FAIL: verify"; grep -B3 DISAGREES "$T/verify.txt" | head -20; exit 1; }
python3 - "$T/report.json" "$start" "$end" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
print(f"ok: {d['summary']['lines']} lines, {d['summary']['sections']} sections, "
      f"wall {wall:.1f}s, inside: {d['timing']}")
sys.exit(0 if d["summary"]["sections"] == 336 and wall < 60 else 1)
PY

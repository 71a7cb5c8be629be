#!/bin/sh
# A memcached-sized program (8 files, ~8,600 lines, 336 sections (outermost lock regions; 504
# acquisitions), from gen_large.py): the
# analysis must finish in seconds, and its rewrite must compile with every section agreeing
# with GCC. Prints the timings (docs/advise.md records them). One run does both (--json
# --verify: the report carries each section's verify result and the time verify took); the
# analysis' wall time is that run's wall time less the verify phase.
ROOT=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
python3 "$ROOT/tests/advise/gen_large.py" "$T" || exit 1
start=$(date +%s.%N)
"$ROOT/bin/tmkit" advise -p "$T" --json --verify -o "$T/report.json"; rc=$?
end=$(date +%s.%N)
python3 - "$T/report.json" "$start" "$end" "$rc" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print(f"FAIL: advise (exit {sys.argv[4]}): no report: {e}")
    sys.exit(1)
bad = [s for s in d["sections"] if "verify" in s and not s["verify"]["agree"]]
for s in bad[:5]:
    print(f"FAIL: verify: section #{s['id']} {s['function']} {s['file']}:{s['line']} "
          f"DISAGREES: {s.get('verify')}")
if sys.argv[4] != "0" or bad:
    print(f"FAIL: advise --verify exited {sys.argv[4]}, {len(bad)} section(s) disagree")
    sys.exit(1)
verify = d["timing"]["verify"]
wall = float(sys.argv[3]) - float(sys.argv[2]) - verify
print(f"ok: {d['summary']['lines']} lines, {d['summary']['sections']} sections, "
      f"wall {wall:.1f}s (verify {verify:.1f}s more), inside: {d['timing']}")
sys.exit(0 if d["summary"]["sections"] == 336 and wall < 60 else 1)
PY

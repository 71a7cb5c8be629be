#!/bin/sh
# The profile format is the documented one: real profiles (every algorithm, a forking program; the
# table form excluded) and shared-memory snapshots validate against docs/stats.schema.json with
# the jsonschema package from the project venv; a broken document is rejected (so the check can
# fail). Every counter a site carries is listed in "counters" and vice versa.
. "$(dirname "$0")/lib.sh"
export LD_LIBRARY_PATH=$BUILD/lib
PY=$ROOT/.venv/bin/python
"$PY" -c "import jsonschema" 2>/dev/null || sh "$ROOT/scripts/venv.sh" >/dev/null 2>&1
"$PY" -c "import jsonschema" 2>/dev/null || fail "jsonschema missing from .venv (scripts/venv.sh)"
d=$(mktemp -d)
name=tmkit-schema-$$
trap 'rm -rf "$d"; rm -f /dev/shm/tmkit.$name' EXIT
for algo in $ALGOS; do
    expect_rc 0 env TMKIT_ALGO=$algo TMKIT_STATS=$d/$algo.json "$STATS_PROG" "$d/$algo.count"
done
expect_rc 0 env TMKIT_STATS=$d/fork.json TMKIT_STATS_SHM=$name "$SHM_PROG" fork 2000
"$BUILD/bin/tmkit-shmdump" $name > "$d/shm.json" || fail "tmkit-shmdump failed"
"$PY" - "$ROOT/docs/stats.schema.json" "$d" <<'PY' || fail "schema validation failed"
import glob, json, os, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
files = sorted(f for f in glob.glob(os.path.join(sys.argv[2], "*.json*")) if not f.endswith(".count"))
assert len(files) >= 7, files
for f in files:
    doc = json.load(open(f))
    errors = list(v.iter_errors(doc))
    assert not errors, (f, [e.message for e in errors[:3]])
    names = set(doc["counters"])
    for s in doc["sites"]:
        fields = {k for k, x in s.items() if isinstance(x, int)}
        assert fields == names, (f, sorted(fields ^ names))
    if f.endswith("shm.json"):
        assert doc["segment"] and len(doc["processes"]) == 4, doc["processes"]
bad = json.load(open(files[0]))
bad["sites"][0]["retries_histogram"] = [1, 2]
bad["tmkit_stats_version"] = 2
assert len(list(v.iter_errors(bad))) == 2, "a broken profile was accepted"
PY
echo "schema: ok"

#!/bin/sh
# Relaxed transactions that GCC compiles to start irrevocable (an unsafe call on every path: no
# instrumented code, or pr_doesGoIrrevocable) run serially from their start and never call
# _ITM_changeTransactionMode. The profile counts their attempts (gcc_irrevocable_starts) apart
# from those serial for other reasons, and `tmkit report` names the call from the binary.
# prog_gccirr.c: printf on every path (after a transaction_safe call into a library), a function
# of another file on every path (after a safe one of this file), one of this file that calls
# write, one in a shared library (fputs), the same call on some paths only (instrumented:
# counted as before), and a transaction without calls. Under every algorithm, 2 and 4 threads
# (more than the cores); the program checks its own counts. Then: the HTML page and a comparison,
# the shared segment, a classic (non-PIE) executable, a stripped copy, a rebuilt binary (another
# build id), a missing one and an older profile; last, prog_gccirr_clone.c: a function with a
# clone that goes irrevocable on entry.
. "$(dirname "$0")/lib.sh"
export LD_LIBRARY_PATH=$BUILD/lib
T=$ROOT/bin/tmkit
src=$ROOT/tests/unit/prog_gccirr.c
lsrc=$ROOT/tests/unit/prog_gccirr_lib.c
d=$(mktemp -d)
name=tmkit-gccirr-$$
trap 'rm -rf "$d"; rm -f /dev/shm/tmkit.$name' EXIT
line_of() { grep -n "/\* $1 \*/" "$2" | cut -d: -f1; }
printf_line=$(line_of GCCIRR_PRINTF "$src")
ext_line=$(line_of GCCIRR_EXT "$src")
helper_line=$(line_of GCCIRR_HELPER "$src")
out_line=$(line_of GCCIRR_OUT "$src")
lib_line=$(line_of GCCIRR_LIB "$lsrc")
START="starts irrevocable \(GCC: unsafe call on every path\)"
N=2000

# check PROFILE ALGO COUNTS: each site's counters against the program's own counts (COUNTS: its
# stderr). A site is told by its line (addr2line): the block of prog_gccirr.c's run() it is in,
# known by its marker (GCCIRR_*), or the library's.
check() {
    python3 - "$1" "$2" "$3" "$src" <<'PY' ||
import json, re, subprocess, sys
prof, algo, counts, src = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], sys.argv[4]
n = {k: int(v) for k, v in (l.split() for l in open(counts) if l.strip())}
text = open(src).read().split("\n")
opens = [i + 1 for i, l in enumerate(text) if "__transaction_" in l and "{" in l]
blocks = []  # (first line, last line, kind)
for k, first in enumerate(opens):
    last = opens[k + 1] - 1 if k + 1 < len(opens) else first + 8
    mark = next(re.search(r"GCCIRR_(\w+)", l) for l in text[first - 1:last] if "GCCIRR_" in l)
    blocks.append((first, last, mark[1].lower()))
def base(obj):  # the profile's offsets start at the lowest page mapped
    out = subprocess.run(["readelf", "-lW", obj], capture_output=True, text=True).stdout
    return min(int(l.split()[2], 16) for l in out.splitlines() if l.split()[:1] == ["LOAD"]) & ~0xfff
def kind(s):
    obj = s["site_object"]
    if obj.endswith(".so"):
        return "lib"
    loc = subprocess.run(["addr2line", "-e", obj, hex(int(s["site_offset"], 16) + base(obj))],
                         capture_output=True, text=True).stdout.split(" (")[0].strip()
    line = int(loc.rsplit(":", 1)[-1])
    return next((k for a, b, k in blocks if a <= line <= b), "?" + loc)
sites = {}
for s in prof["sites"]:
    k = kind(s)
    assert k not in sites, ("two sites of one kind", k, prof["sites"])
    sites[k] = s
assert set(sites) == {"printf", "ext", "helper", "some", "pure", "lib"}, sorted(sites)
for k in ("printf", "ext", "helper", "lib"):   # GCC starts every attempt irrevocable: all counted
    s = sites[k]
    assert s["gcc_irrevocable_starts"] == n[k] == s["starts"] == s["commits"], (k, n[k], s)
    assert "irrevocable_call" not in s and s["irrevocable_switches"] == 0, (k, s)
    assert s.get("site_build_id"), ("no build id", s)
for k in ("some", "pure"):           # instrumented by GCC: none, even when run serially
    s = sites[k]
    assert s["gcc_irrevocable_starts"] == 0 and s["commits"] == n[k], (k, n[k], s)
if algo == "serialirr":              # serial for another reason: still not GCC's
    assert sites["pure"]["uninstrumented_attempts"] == sites["pure"]["starts"], sites["pure"]
elif algo not in ("adaptive", "htm"):  # speculative: the call on some paths switches, as before
    assert sites["some"]["irrevocable_switches"] > 0, sites["some"]
total = sum(s["gcc_irrevocable_starts"] for s in prof["sites"])
assert total == n["printf"] + n["ext"] + n["helper"] + n["lib"], total
PY
    fail "$2: counters: $(cat "$3") $(head -c 3000 "$1")"
}

# report PROFILE WHAT: the serializing-call column names each call and its line, and only there
report() {
    out=$("$T" report "$1" 2>&1) || fail "$2: report failed: $out"
    for want in "printf at prog_gccirr.c:$printf_line" "gccirr_note at prog_gccirr.c:$ext_line" \
                "gccirr_out at prog_gccirr.c:$helper_line \(which calls [a-z_]+ at prog_gccirr.c:$out_line\)" \
                "fputs at prog_gccirr_lib.c:$lib_line"; do
        echo "$out" | grep -Eq "$START: $want\$" || fail "$2: report does not say '$want':
$out"
    done
    [ "$(echo "$out" | grep -Ec "$START")" = 4 ] || fail "$2: more sites started irrevocable:
$out"
}

first=
for algo in $ALGOS; do
    first=${first:-$algo}
    for t in 2 4; do
        env TMKIT_ALGO=$algo TMKIT_STATS="$d/$algo.json" "$GCCIRR_PROG" $N $t >/dev/null 2>"$d/counts" ||
            fail "$algo, $t threads: the program failed: $(cat "$d/counts")"
        check "$d/$algo.json" $algo "$d/counts"
    done
    report "$d/$algo.json" $algo
done
# The HTML page has the same column.
expect_rc 0 "$T" report "$d/$first.json" --html "$d/page.html" --no-plots
grep -q "printf at prog_gccirr.c:$printf_line" "$d/page.html" || fail "page: no call"
# The comparison's "serialized by" column too.
out=$("$T" report "$d/$first.json" "$d/$algo.json" --compare) || fail "compare failed"
echo "$out" | grep -Eq "  $START: printf at prog_gccirr.c:$printf_line\$" || fail "compare: no call:
$out"

# The shared segment: the same counts live, with the build id (the snapshot is a profile).
env TMKIT_ALGO=gl_wt TMKIT_STATS_SHM=$name "$GCCIRR_PROG" $N 2 >/dev/null 2>"$d/counts" ||
    fail "shm: the program failed"
"$BUILD/bin/tmkit-shmdump" $name > "$d/shm.json" || fail "tmkit-shmdump failed"
check "$d/shm.json" gl_wt "$d/counts"
report "$d/shm.json" shm
PY=$ROOT/.venv/bin/python
if "$PY" -c "import jsonschema" 2>/dev/null; then
    "$PY" - "$ROOT/docs/stats.schema.json" "$d/$first.json" "$d/shm.json" <<'PY' || fail "schema"
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
for f in sys.argv[2:]:
    errors = [e.message for e in v.iter_errors(json.load(open(f)))]
    assert not errors, (f, errors[:3])
PY
fi

# A classic executable: offsets from 0x400000, not from 0.
readelf -h "$GCCIRR_NOPIE" | grep -q "EXEC" || fail "$GCCIRR_NOPIE is position-independent"
readelf -h "$GCCIRR_PROG" | grep -q "DYN" || fail "$GCCIRR_PROG is not position-independent"
env TMKIT_STATS="$d/nopie.json" "$GCCIRR_NOPIE" $N 2 >/dev/null 2>"$d/counts" || fail "nopie failed"
check "$d/nopie.json" adaptive "$d/counts"
report "$d/nopie.json" nopie
[ "$(echo "$out" | grep -c "^run (prog_gccirr.c:[0-9]*) ")" = 5 ] || fail "nopie: sites not named: $out"

# A stripped copy: not named, said so, no traceback.
NOT="$START: the call could not be named"
cp "$GCCIRR_PROG" "$d/stripped" && strip "$d/stripped"
env TMKIT_STATS="$d/stripped.json" "$d/stripped" 100 2 >/dev/null 2>&1 || fail "stripped copy failed"
out=$("$T" report "$d/stripped.json" 2>&1) || fail "stripped: report failed: $out"
[ "$(echo "$out" | grep -Ec "$NOT \(stripped is stripped: no symbol table\)")" = 3 ] ||
    fail "stripped: $out"
echo "$out" | grep -Eq "$START: fputs at prog_gccirr_lib.c:$lib_line" ||
    fail "stripped: the library's call: $out"

# A binary rebuilt since the profile (its build id changed: the bytes of its note rewritten),
# then one that is gone.
cp "$GCCIRR_PROG" "$d/rebuilt"
env TMKIT_STATS="$d/rebuilt.json" "$d/rebuilt" 100 2 >/dev/null 2>&1 || fail "copy failed"
id=$(readelf -n "$d/rebuilt" | sed -n 's/.*Build ID: *//p')
python3 - "$d/rebuilt" "$id" <<'PY' || fail "cannot rewrite the build id"
import sys
path, old = sys.argv[1], bytes.fromhex(sys.argv[2])
data = open(path, "rb").read()
assert len(old) >= 8 and data.count(old) == 1, "build id not found once"
open(path, "wb").write(data.replace(old, bytes(b ^ 0xff for b in old)))
PY
out=$("$T" report "$d/rebuilt.json" 2>&1) || fail "rebuilt: report failed: $out"
was=$(echo "$id" | cut -c1-12)
[ "$(echo "$out" | grep -Ec "$NOT \(rebuilt changed since the profile: build id [0-9a-f]{12}, the profile's $was\)")" = 3 ] ||
    fail "rebuilt: $out"
rm "$d/rebuilt"
out=$("$T" report "$d/rebuilt.json" 2>&1) || fail "gone: report failed: $out"
[ "$(echo "$out" | grep -Ec "$NOT \(.*/rebuilt: no such file\)")" = 3 ] || fail "gone: $out"
echo "$out" | grep -q Traceback && fail "gone: traceback: $out"

# A profile of an older tmkit (no gcc_irrevocable_starts, no build id) reads as before.
python3 - "$d/$first.json" "$d/old.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["counters"].remove("gcc_irrevocable_starts")
for s in p["sites"]:
    del s["gcc_irrevocable_starts"]
    s.pop("site_build_id", None)
json.dump(p, open(sys.argv[2], "w"))
PY
out=$("$T" report "$d/old.json" 2>&1) || fail "old profile: report failed: $out"
echo "$out" | grep -Eq "$START" && fail "old profile: $out"
[ "$(echo "$out" | grep -c "^run (prog_gccirr.c:[0-9]*) ")" = 5 ] || fail "old profile: sites: $out"
# A call of a transaction_callable function whose clone goes irrevocable on entry (vsnprintf on
# every path: memcached's get_stats calling append_stat): GCC starts the transaction
# irrevocable although the function has a clone; the report names it and the call inside. A
# clone that goes irrevocable on one path only (GCCIRR_SOME) leaves its caller instrumented.
csrc=$ROOT/tests/unit/prog_gccirr_clone.c
clone_line=$(line_of GCCIRR_CLONE "$csrc")
vsn_line=$(line_of GCCIRR_VSNPRINTF "$csrc")
env TMKIT_STATS="$d/clone.json" "$GCCIRR_CLONE" $N 2 >/dev/null 2>"$d/counts" ||
    fail "clone: the program failed: $(cat "$d/counts")"
python3 - "$d/clone.json" "$d/counts" <<'PY' || fail "clone: counters: $(cat "$d/counts")"
import json, sys
prof = json.load(open(sys.argv[1]))
n = {k: int(v) for k, v in (l.split() for l in open(sys.argv[2]) if l.strip())}
started = [s for s in prof["sites"] if s["gcc_irrevocable_starts"]]
assert len(started) == 1 and started[0]["gcc_irrevocable_starts"] == n["clone"] == \
    started[0]["commits"], (n, prof["sites"])
assert sum(s["commits"] for s in prof["sites"]) == n["clone"] + n["some"], (n, prof["sites"])
PY
out=$("$T" report "$d/clone.json" 2>&1) || fail "clone: report failed: $out"
echo "$out" | grep -Eq "$START: gccirr_stat at prog_gccirr_clone.c:$clone_line \(which calls vsnprintf at prog_gccirr_clone.c:$vsn_line\)\$" ||
    fail "clone: report does not name gccirr_stat and vsnprintf:
$out"
[ "$(echo "$out" | grep -Ec "$START")" = 1 ] || fail "clone: more sites started irrevocable:
$out"

echo "ok: GCC's irrevocable starts counted and named (prog_gccirr.c:$printf_line, :$ext_line,"\
    ":$helper_line, prog_gccirr_lib.c:$lib_line) under: $ALGOS"

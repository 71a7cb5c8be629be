#!/bin/sh
# tmkit advise --apply turns a lock that some sections keep into a lock group (tools/tmkit_cli/
# advise/lockgroups.py, lgsettle.py) on the fixture tests/advise/lockgroups/ (a pool of tokens
# and an array of buckets, built by its own strict Makefile):
#   0. without --group-arrays, bucket_locks[] stays a mutex array (listed, with the reason);
#   1. with it, the report: pool_lock and bucket_locks[] become groups; pool_take (an early return and
#      releases in two other blocks), pool_put (its lock call inside an `if` expression) and
#      bucket_begin (returns holding the lock; bucket_end releases it) stay plain code under
#      them, each listed with file:line and why; pool_check and bucket_fill become transactions
#      that enter the groups;
#   2. the written tree: no pthread lock or unlock call is left on either lock, each call is
#      tm_group_lock/tm_group_unlock in place, `(tm_group_lock(...), 0)` where the result is
#      tested, the release in bucket_end too;
#   3. the tree builds under its -Werror flags and keeps its invariants (the tokens add up, no
#      section sees a half-done update of the plain sections) under adaptive, gl_wt, orec_eager
#      and serialirr with 2 threads and with 8 (more than the cores), and on GCC's libitm.
# Usage: lockgroups.sh ROOT
ROOT=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
TMKIT=$ROOT/bin/tmkit

cp -r "$ROOT/tests/advise/lockgroups" "$T/src" || fail "copy"
python3 - "$T/src" <<'PY' || fail "compile_commands.json"
import json, os, sys
d = sys.argv[1]
json.dump([{"directory": d, "file": "pool.c", "arguments": ["cc", "-O2", "-pthread", "-c", "pool.c"]}],
          open(os.path.join(d, "compile_commands.json"), "w"))
PY
# without --group-arrays the lock array stays a mutex array, listed with its reason
(cd "$T/src" && "$TMKIT" advise -p . --apply "$T/plain" --json -o "$T/noarrays.json") ||
    fail "advise --apply (no --group-arrays)"
python3 - "$T/noarrays.json" <<'PY' || fail "the report without --group-arrays: see above"
import json, sys
d = json.load(open(sys.argv[1]))
assert {x["lock"] for x in d["lock_groups"]["groups"]} == {"pool_lock"}, d["lock_groups"]
left = {x["lock"]: x["reason"] for x in d["lock_groups"]["left"]}
assert left.get("bucket_locks[]", "").startswith("a lock array"), left
PY
grep -q 'pthread_mutex_lock(&bucket_locks\[i\])' "$T/plain/pool.c" || fail "bucket_locks[] rewritten without --group-arrays"
(cd "$T/src" && "$TMKIT" advise -p . --group-arrays > /dev/null 2>&1) && fail "--group-arrays without --apply accepted"
(cd "$T/src" && "$TMKIT" advise -p . --apply "$T/out" --group-arrays --json -o "$T/report.json") ||
    fail "advise --apply --group-arrays"

# 1. the report
python3 - "$T/report.json" <<'PY' || fail "the report: see above"
import json, sys
d = json.load(open(sys.argv[1]))
by = {s["function"]: s for s in d["sections"]}
g = {x["lock"]: x for x in d["lock_groups"]["groups"]}
assert set(g) == {"pool_lock", "bucket_locks[]"}, d["lock_groups"]
plain = {p["function"]: p for x in g.values() for p in x["plain"]}
assert set(plain) == {"pool_take", "pool_put", "bucket_begin"}, plain
assert "no release in the block" in plain["pool_take"]["why"], plain["pool_take"]
assert "does more than lock" in plain["pool_put"]["why"], plain["pool_put"]
assert "still held when bucket_begin returns" in plain["bucket_begin"]["why"], plain["bucket_begin"]
for f in plain:
    p = by[f]["patch"]
    assert not p["eligible"] and p["lock_group"]["mode"] == "exclusive", p
    assert p["reason"].startswith("plain code under its lock's group"), p
    assert plain[f]["file"] == "pool.c" and plain[f]["line"] == by[f]["line"], plain[f]
for f, lock in (("pool_check", "pool_lock"), ("bucket_fill", "bucket_locks[]")):
    p = by[f]["patch"]
    assert p["eligible"] and "tm_group_enter" in p["construct"], p
    assert p["lock_group"] == {"group": g[lock]["group"], "mode": "shared"}, p
    assert g[lock]["transactions"] == [by[f]["id"]], g[lock]
locks = {l["name"]: l for l in d["locks"]}
for lock in g:
    assert not locks[lock]["removable"] and locks[lock]["reason"].startswith("a lock group"), locks[lock]
print("report: ok")
PY

# 2. the written tree
P=$T/out/pool.c
grep -Eq 'pthread_mutex_(un)?lock\(&(pool_lock|bucket_locks)' "$P" && fail "a pthread lock call is left"
grep -q "if ((tm_group_lock(&tmkit_groups\[[0-9]\]), 0) != 0)" "$P" || fail "pool_put's test of the lock's result"
[ "$(grep -c '^ *tm_group_unlock(&tmkit_groups\[[0-9]\]);$' "$P")" = 4 ] ||
    fail "expected pool_lock's 4 unlock calls in place (pool_take 3, pool_put 1)"
# an element's index stays evaluated (the array has one group): bucket_end's i stays used
[ "$(grep -c '^ *((void)(i), tm_group_unlock(&tmkit_groups\[[0-9]\]));$' "$P")" = 2 ] ||
    fail "expected bucket_locks' 2 unlock calls in place (bucket_begin, bucket_end)"
grep -A2 '^static void bucket_end' "$P" | grep -q 'tm_group_unlock(&tmkit_groups' ||
    fail "bucket_end's release is not tm_group_unlock"
grep -q 'tm_group_enter(&tmkit_groups\[[0-9]\]); __transaction_atomic {' "$P" || fail "no transaction entering a group"

# 3. build and run
(cd "$T/src" && make -s >"$T/lock.log" 2>&1) || { cat "$T/lock.log"; fail "the lock build"; }
out=$("$T/src/pool" 8 20000) || fail "the lock build: $out"
(cd "$T/out" && . ./tmkit-build.env && make -s >"$T/make.log" 2>&1) || {
    cat "$T/make.log"; fail "the rewritten tree does not build with its own flags"; }
ldd "$T/out/pool" | grep -q "$ROOT/build/lib/libitm.so.1" || fail "the rewritten pool does not load tmkit's libitm"
for a in adaptive gl_wt orec_eager serialirr; do
    for n in 2 8; do
        out=$(TMKIT_ALGO=$a timeout 120 "$T/out/pool" $n 20000) || fail "under $a, $n threads: $out"
    done
done
LIBITM_DIR=$(dirname "$(gcc -print-file-name=libitm.so.1)")
out=$(LD_LIBRARY_PATH=$LIBITM_DIR timeout 120 "$T/out/pool" 4 20000) || fail "on GCC's libitm: $out"
echo "advise --apply lock groups fixture: ok"

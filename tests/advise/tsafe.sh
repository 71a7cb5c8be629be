#!/bin/sh
# tmkit advise --apply declares transaction_safe, headers included (tools/tmkit_cli/advise/
# tsafe.py), on the fixture tests/advise/tsafe/ (a bank whose sections call helpers of another
# file, built by its own strict Makefile):
#   1. the report: the transfer's section, whose only call into acct.c is the arithmetic
#      acct_fee, is __transaction_atomic; the section that calls acct_round (its address is
#      taken) and the one that calls acct_audit (it prints) stay relaxed; the JSON lists the
#      declarations written;
#   2. the written tree: acct_fee's prototype in acct.h and its definition carry
#      transaction_safe, the call stays direct; acct_round and acct_audit get their clones and
#      pointers instead; acct.h gains no include; main.c does not change;
#   3. the tree builds under its -Werror flags and the total holds under every algorithm with
#      4 threads (more than the cores) and on GCC's libitm;
#   4. the profile under gl_wt: the transfer's transactions never go irrevocable.
# Usage: tsafe.sh ROOT (ALGOS from the environment, or every algorithm tmkit knows).
ROOT=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
TMKIT=$ROOT/bin/tmkit
ALGOS=${ALGOS:-$("$TMKIT" algos --names)}

cp -r "$ROOT/tests/advise/tsafe" "$T/src" || fail "copy"
python3 - "$T/src" <<'PY' || fail "compile_commands.json"
import json, os, sys
d = sys.argv[1]
json.dump([{"directory": d, "file": f, "arguments": ["cc", "-O2", "-pthread", "-c", f]}
           for f in ("main.c", "bank.c", "acct.c")],
          open(os.path.join(d, "compile_commands.json"), "w"))
PY
(cd "$T/src" && "$TMKIT" advise -p . --apply "$T/out" --json -o "$T/report.json") ||
    fail "advise --apply"

# 1. the report
python3 - "$T/report.json" <<'PY' || fail "the report: see above"
import json, sys
d = json.load(open(sys.argv[1]))
by = {s["function"]: s for s in d["sections"]}
construct = {f: s["patch"].get("construct") for f, s in by.items()}
assert construct == {"bank_transfer": "__transaction_atomic",
                     "bank_move_rounded": "__transaction_relaxed",
                     "bank_sweep": "__transaction_relaxed",
                     "bank_total": "__transaction_atomic"}, construct
assert not by["bank_transfer"]["blockers"], by["bank_transfer"]["blockers"]
safe = d["apply"]["transaction_safe"]
assert [s["function"] for s in safe] == ["acct_fee"], safe
decls = sorted(x.split(":")[0] for x in safe[0]["declarations"])
assert decls == ["acct.c", "acct.h"], decls
callable_ = sorted(c["function"] for c in d["apply"]["transaction_callable"])
assert callable_ == ["acct_audit", "acct_round"], callable_
print("report: ok")
PY

# 2. the written tree
grep -q '^__attribute__((transaction_safe)) long acct_fee(long amount);$' "$T/out/acct.h" ||
    fail "acct_fee's prototype in acct.h is not transaction_safe"
grep -q '^__attribute__((transaction_safe)) long acct_fee(long amount)$' "$T/out/acct.c" ||
    fail "acct_fee's definition is not transaction_safe"
grep -q '    long fee = acct_fee(amount);' "$T/out/bank.c" || fail "the call to acct_fee is not direct"
grep -q 'tmkit_tmcall_acct_round(amount)' "$T/out/bank.c" || fail "acct_round is not called through its clone"
grep -q '^__attribute__((transaction_callable)) long acct_round(' "$T/out/acct.c" ||
    fail "acct_round (address taken) is not transaction_callable"
grep -q '^__attribute__((transaction_callable)) void acct_audit(' "$T/out/acct.c" ||
    fail "acct_audit (prints) is not transaction_callable"
grep -q 'tmkit' "$T/out/acct.h" && fail "acct.h gained an include"
grep -q 'acct_round(long amount);$' "$T/out/acct.h" || fail "acct_round's prototype changed"
cmp -s "$T/src/main.c" "$T/out/main.c" || fail "main.c has no section and must not change"

# 3. build and run
(cd "$T/out" && . ./tmkit-build.env && make -s >"$T/make.log" 2>&1) || {
    cat "$T/make.log"; fail "the rewritten tree does not build with its own flags"; }
grep -v "note: disable pass tree-fre3" "$T/make.log" | grep -q . && {
    cat "$T/make.log"; fail "the build printed warnings"; }
for a in $ALGOS; do
    out=$(TMKIT_ALGO=$a timeout 120 "$T/out/bank" 4 20000) || fail "under $a: $out"
done
LIBITM_DIR=$(dirname "$(gcc -print-file-name=libitm.so.1)")
out=$(LD_LIBRARY_PATH=$LIBITM_DIR timeout 120 "$T/out/bank" 4 20000) || fail "on GCC's libitm: $out"

# 4. the profile
TMKIT_ALGO=gl_wt TMKIT_STATS=$T/p.json "$T/out/bank" 4 20000 >/dev/null || fail "profiled run"
python3 - "$T/p.json" <<'PY' || fail "the profile: see above"
import json, sys
sites = json.load(open(sys.argv[1]))["sites"]
assert sum(s["commits"] for s in sites) >= 4 * 20000, sites
forced = sum(s["irrevocable_switches"] + s.get("gcc_irrevocable_starts", 0) for s in sites)
assert forced == 0, f"{forced} attempts went irrevocable (none may: the audit never prints)"
print("profile: ok")
PY
echo "advise --apply transaction_safe fixture: ok"

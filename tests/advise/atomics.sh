#!/bin/sh
# tmkit advise --apply's tm_atomic_* and tm_counter_t rewrites (advise/atomics.py, counters.py)
# on tests/advise/atomics/forms.c, which uses every builtin form rewritten, on each type
# tm_atomic_* takes, inside a section and outside it, and counters of every kind:
#   1. the report: what is rewritten and what is left, with its reason;
#   2. the written file: no builtin left but the three without a tm_atomic_* form, the
#      counters' declarations (also the header's extern) tm_counter_t;
#   3. the lock build and the rewritten one, both with -Wall -Wextra -Werror -pedantic, print
#      the same values, on tmkit under each algorithm and on GCC's libitm.
# Usage: atomics.sh ROOT BUILD (ALGOS from the environment, or every algorithm tmkit knows).
ROOT=$1 BUILD=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
TMKIT=$ROOT/bin/tmkit
ALGOS=${ALGOS:-$("$TMKIT" algos --names)}
WARN="-O2 -Wall -Wextra -Werror -pedantic -Wno-clobbered -pthread"

cp -r "$ROOT/tests/advise/atomics" "$T/src" || fail "copy"
printf '[{"directory": "%s", "file": "forms.c", "arguments": ["cc", "-O2", "-pthread", "-c", "forms.c"]}]\n' \
    "$T/src" >"$T/src/compile_commands.json"
(cd "$T/src" && "$TMKIT" advise -p . --apply "$T/out" --json -o "$T/report.json") || fail "advise --apply"

# 1. the report
python3 - "$T/report.json" <<'PY' || fail "the report: see above"
import json, sys
d = json.load(open(sys.argv[1]))
secs = sorted(d["sections"], key=lambda s: s["line"])
assert [s["patch"].get("construct") for s in secs] == ["__transaction_atomic",
                                                      "__transaction_relaxed"], secs
r = d["rewrites"]
names = sorted(a["builtin"] for a in r["atomics"])
assert names == sorted(
    ["__atomic_add_fetch", "__atomic_add_fetch", "__atomic_compare_exchange_n", "__atomic_compare_exchange_n",
     "__atomic_exchange_n", "__atomic_fetch_add", "__atomic_fetch_and", "__atomic_fetch_or",
     "__atomic_fetch_sub", "__atomic_load", "__atomic_load_n", "__atomic_load_n",
     "__atomic_load_n", "__atomic_store", "__atomic_store_n", "__atomic_sub_fetch",
     "__sync_add_and_fetch", "__sync_bool_compare_and_swap", "__sync_fetch_and_add",
     "__sync_lock_release", "__sync_lock_test_and_set", "__sync_or_and_fetch",
     "__sync_sub_and_fetch", "__sync_val_compare_and_swap"]), names
assert all(a["location"] in ("l", "ul", "i", "ui", "ptr") for a in r["atomics"]), r["atomics"]
left = {a["what"]: a["reason"] for a in r["atomics_left"]}
assert set(left) == {"__atomic_fetch_add", "__atomic_fetch_xor", "__atomic_thread_fence"}, left
assert "unsigned short" in left["__atomic_fetch_add"], left
assert "no tm_atomic_* equivalent" in left["__atomic_fetch_xor"], left
assert "fence" in left["__atomic_thread_fence"], left
conv = {c["name"]: (c["updates"], c["reads"]) for c in r["counters"]}
assert conv == {"bytes_in": (1, 1), "hits": (3, 1), "served": (1, 1)}, conv
why = {c["name"]: c["reason"].split(" (")[0] for c in r["counters_left"]}
assert why == {"addressed": "its address is taken", "assigned": "assigned",
               "valued": "the value of ++ is used", "outside": "updated outside any critical section",
               "seeded": "initialised to a value other than 0"}, why
print("report: ok")
PY

# 2. the written files
left=$(grep -oE '__(atomic|sync)_[a-z_]+' "$T/out/forms.c" | grep -v '__ATOMIC' | sort | tr '\n' ' ')
[ "$left" = "__atomic_fetch_add __atomic_fetch_xor __atomic_thread_fence " ] ||
    fail "builtins left in forms.c: $left"
grep -q '^extern tm_counter_t bytes_in;' "$T/out/forms.h" || fail "the header's extern is not tm_counter_t"
grep -q '^tm_counter_t bytes_in = TM_COUNTER_INITIALIZER;' "$T/out/forms.c" || fail "bytes_in's definition"
grep -q '^static long addressed, assigned, valued, outside, seeded = 3;' "$T/out/forms.c" ||
    fail "the counters that stay changed"

# 3. the same values, lock build and rewritten build
gcc $WARN -o "$T/lock" "$T/src/forms.c" || fail "the lock build"
"$T/lock" >"$T/want" || fail "the lock build's run"
(cd "$T/out" && . ./tmkit-build.env && gcc $CFLAGS $WARN $LDFLAGS -o "$T/tm" forms.c $LIBS \
    >"$T/cc.log" 2>&1) || { cat "$T/cc.log"; fail "the rewritten file does not build"; }
grep -v "note: disable pass tree-fre3" "$T/cc.log" | grep -q . && { cat "$T/cc.log"; fail "warnings"; }
for a in $ALGOS; do
    TMKIT_ALGO=$a "$T/tm" >"$T/got" || fail "run under $a"
    cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got"; fail "under $a the values differ"; }
done
LIBITM_DIR=$(dirname "$(gcc -print-file-name=libitm.so.1)")
LD_LIBRARY_PATH=$LIBITM_DIR "$T/tm" >"$T/got" || fail "run on GCC's libitm"
cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got"; fail "on GCC's libitm the values differ"; }
echo "advise atomics and counters: ok"

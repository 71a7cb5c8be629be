#!/bin/sh
# tmkit advise --apply on the fixture tests/advise/apply/ (a small lock-based key-value store in
# four files, built by its own strict Makefile): every rewrite --apply makes on memcached, checked
# on a program small enough for make test.
#   1. the report: the switch cases' sections atomic, the store's relaxed (calls into another
#      file and through a function pointer), the log's two waiting sections tm_atomic_retry with
#      both condition variables rewritten, and every lock removed, the log's too;
#   2. the written tree: tmkit.h after the file's own includes, tm_volatile_read for the clock,
#      the call into log.c through its clone pointer, transaction_callable on the callee and on
#      both hash functions the pointer may reach, `unused` on the removed static locks; the
#      conditions as tm_cond_t: the waits (a while loop, a timed if), the signals inside a
#      section and after one, the broadcast, the initializer, init and destroy;
#      tm_atomic_* for every __atomic/__sync builtin on the reference counts and the version,
#      in the sections and outside them (main.c too), the unsigned short one left with its
#      reason; tm_counter_t for the statistics counters, whose updates become tm_counter_add
#      and reads tm_counter_read, and not for the peak, which is assigned;
#   3. the tree builds with its own -Werror flags and tmkit-build.env, and the program keeps its
#      invariants under every algorithm with 4 threads (more than the cores) and on GCC's libitm
#      (where tm_cond waits poll): the logger wakes for the notes and counts every one, the
#      drain wait wakes before its deadline, the stop ends the logger;
#   4. the profile under gl_wt: no transaction goes irrevocable while nothing is logged (the clones,
#      the wrapped strlen/memcmp and the clock reads run speculatively), and with logging on
#      the lookups go irrevocable at the print only.
# Usage: apply.sh ROOT BUILD (ALGOS from the environment, or every algorithm tmkit knows).
ROOT=$1 BUILD=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
TMKIT=$ROOT/bin/tmkit
ALGOS=${ALGOS:-$("$TMKIT" algos --names)}

cp -r "$ROOT/tests/advise/apply" "$T/src" || fail "copy"
python3 - "$T/src" <<'PY' || fail "compile_commands.json"
import json, os, sys
d = sys.argv[1]
json.dump([{"directory": d, "file": f, "arguments": ["cc", "-O2", "-pthread", "-c", f]}
           for f in ("main.c", "store.c", "stats.c", "log.c")],
          open(os.path.join(d, "compile_commands.json"), "w"))
PY
(cd "$T/src" && "$TMKIT" advise -p . --apply "$T/out" --json -o "$T/report.json") ||
    fail "advise --apply"

# 1. the report
python3 - "$T/report.json" <<'PY' || fail "the report: see above"
import json, sys
d = json.load(open(sys.argv[1]))
by = {}
for s in d["sections"]:
    by.setdefault(s["function"], []).append(s)
def construct(fn):
    return sorted(s["patch"].get("construct", "kept: " + s["patch"].get("reason", "")) for s in by[fn])
assert construct("kv_count") == ["__transaction_atomic"] * 3, construct("kv_count")
assert construct("kv_get") == ["__transaction_relaxed"], construct("kv_get")
assert construct("kv_set") == ["__transaction_relaxed"], construct("kv_set")
assert construct("kv_note_peak") == ["__transaction_atomic"], construct("kv_note_peak")
retry = "tm_atomic_retry + tm_cond_wait"
assert construct("log_main") == [retry], construct("log_main")
assert construct("kv_log_drained") == [retry], construct("kv_log_drained")
assert construct("kv_log_stop") == ["__transaction_atomic"], construct("kv_log_stop")
assert construct("kv_log_note") == ["__transaction_atomic"], construct("kv_log_note")
for fn in ("log_main", "kv_log_drained", "kv_log_stop"):
    assert by[fn][0]["blockers"] == [] and by[fn][0]["class"] == "pure", by[fn][0]
locks = {l["name"]: l["removable"] for l in d["locks"]}
assert locks == {"store_lock": True, "stats_lock": True, "peak_lock": True,
                 "log_lock": True}, locks
conds = {c["name"]: c for c in d["condvars"]}
assert set(conds) == {"log_cond", "drained_cond"}, conds
for name, fn in (("log_cond", "log_main"), ("drained_cond", "kv_log_drained")):
    c = conds[name]
    assert c["rewritten"] and c["lock"] == "log_lock" and "reason" not in c, c
    assert c["sections"] == [by[fn][0]["id"]], (c, by[fn][0]["id"])
ops = sorted((u["op"], u["function"]) for u in conds["log_cond"]["uses"])
assert ops == [("pthread_cond_signal", "kv_log_note"), ("pthread_cond_signal", "kv_log_stop"),
               ("pthread_cond_wait", "log_main")], ops
get = by["kv_get"][0]
assert get["irrevocable"] == "sometimes", get["irrevocable"]   # only when it logs
kinds = {b["kind"] for b in get["blockers"]}
# the reference count's builtin is no blocker; the print's unsigned short count (left) is one,
# on the print's path
assert kinds == {"tm-call", "io", "atomic"}, kinds
assert construct("kv_refs") == ["__transaction_atomic"], construct("kv_refs")
r = d["rewrites"]
done = sorted((a["file"], a["builtin"], a["location"]) for a in r["atomics"])
assert done == [("main.c", "__atomic_load_n", "kv_version"),
                ("store.c", "__atomic_add_fetch", "struct entry::refs"),
                ("store.c", "__atomic_fetch_sub", "struct entry::refs"),
                ("store.c", "__atomic_load_n", "kv_version"),
                ("store.c", "__sync_bool_compare_and_swap", "kv_version"),
                ("store.c", "__sync_fetch_and_add", "struct entry::refs")], done
left = [(a["file"], a["what"], a["reason"]) for a in r["atomics_left"]]
assert len(left) == 1 and left[0][:2] == ("log.c", "__atomic_fetch_add") and \
    "unsigned short" in left[0][2], left
conv = {c["name"]: (c["updates"], c["reads"]) for c in r["counters"]}
assert conv == {"hits": (1, 1), "misses": (1, 1), "sets": (1, 1), "balance": (2, 1),
                "lines": (1, 1)}, conv
assert {c["name"]: c["reason"].split(" (")[0] for c in r["counters_left"]} == \
    {"pending": "assigned"}, r["counters_left"]
print("report: ok")
PY

# 2. the written tree
grep -q 'e->stamp = tm_volatile_read(kv_clock);' "$T/out/store.c" || fail "no tm_volatile_read in store.c"
grep -q 'tmkit_tmcall_kv_log_lookup(key, tm_volatile_read(kv_clock))' "$T/out/store.c" ||
    fail "the call into log.c does not go through its clone pointer"
grep -q '^extern __typeof__(&kv_log_lookup) const tmkit_tmcall_kv_log_lookup;$' "$T/out/store.c" ||
    fail "no declaration of the clone pointer in store.c"
for f in kv_hash_sum kv_hash_mul kv_log_lookup; do
    grep -q "^__attribute__((transaction_callable)) [a-z ]* $f(" "$T/out/log.c" ||
        fail "$f is not transaction_callable in log.c"
done
grep -q '^__typeof__(&kv_log_lookup) const tmkit_tmcall_kv_log_lookup = kv_log_lookup;$' "$T/out/log.c" ||
    fail "no clone pointer defined in log.c"
for l in stats_lock peak_lock; do
    grep -q "^__attribute__((unused)) static pthread_mutex_t $l" "$T/out/stats.c" ||
        fail "$l not marked unused"
done
# tmkit.h after the file's own includes (after _GNU_SOURCE and kv.h in store.c)
python3 - "$T/out/store.c" <<'PY' || fail "tmkit.h placement: see above"
import sys
lines = open(sys.argv[1]).read().splitlines()
i = next(i for i, l in enumerate(lines) if l.startswith("#include <tmkit.h>"))
j = next(i for i, l in enumerate(lines) if l.startswith('#include "kv.h"'))
assert i == j + 1 and lines[0] == "/* The store: one lock over a small table; each operation hashes through a function pointer,", lines[:i + 1]
PY
grep -q "^__attribute__((unused)) static pthread_mutex_t log_lock" "$T/out/log.c" ||
    fail "log_lock not marked unused"
grep -q "pthread_cond_\|pthread_mutex_lock(&log_lock)" "$T/out/log.c" &&
    fail "log.c still waits or locks the pthread way"
# the log's rewrite, line by line (the waiting sections; the signals in and after a section)
python3 - "$T/out/log.c" <<'PY' || fail "the condition variables' rewrite: see above"
import re, sys
text = open(sys.argv[1]).read()
def has(*lines):
    pat = r"\n\s*".join(re.escape(l) for l in lines)
    assert re.search(pat, text), "missing:\n  " + "\n  ".join(lines)
has("static tm_cond_t log_cond = TM_COND_INITIALIZER;", "static tm_cond_t drained_cond;")
has("tm_atomic_retry {", "if (!pending && !stopping)", "tm_cond_wait(&log_cond);",
    "tm_counter_add(&lines, (long)(pending));")
has("tm_cond_broadcast(&drained_cond);", "}")
has("int ok = 0;")            # GCC sees the wait's cancel end the loop: -Wmaybe-uninitialized
has("tm_atomic_retry {", "if (pending)",
    "tm_cond_wait_until(&drained_cond, tm_deadline_at_realtime(&at));", "ok = !pending;", "}")
has("__transaction_atomic {", "pending++;", "}", "tm_cond_signal(&log_cond);", "}")
has("stopping = 1;", "tm_cond_signal(&log_cond);", "}")
has("drained_cond = (tm_cond_t)TM_COND_INITIALIZER;")
has("pthread_join(logger, NULL);", "(void)0;")
print("log.c: ok")
PY
# tm_atomic_* and tm_counter_t
grep -q '^        tm_atomic_fetch_add(&e->refs, 1);$' "$T/out/store.c" ||
    fail "the reference taken in kv_get's section is not tm_atomic_fetch_add"
grep -q '^    tm_atomic_fetch_sub(&e->refs, 1);$' "$T/out/store.c" ||
    fail "the reference dropped outside the section is not tm_atomic_fetch_sub"
grep -q 'tm_atomic_compare_exchange(&kv_version, &tmkit_e_, seen + 1)' "$T/out/store.c" ||
    fail "__sync_bool_compare_and_swap is not a tm_atomic_compare_exchange"
grep -q '^    long version = tm_atomic_load(&kv_version);$' "$T/out/main.c" ||
    fail "main.c's load of the version (no section) is not tm_atomic_load"
grep -q '__atomic_fetch_add(&printed, 1, __ATOMIC_RELAXED);' "$T/out/log.c" ||
    fail "the unsigned short builtin was rewritten"
grep -Eq '__(atomic|sync)_' "$T/out/store.c" "$T/out/main.c" && fail "a builtin is left in store.c or main.c"
grep -q '^static long peak; static tm_counter_t hits, misses, sets;$' "$T/out/stats.c" ||
    fail "the counters' declaration is not tm_counter_t (or the peak's changed)"
grep -q '^        tm_counter_add(&balance, -(long)(1));$' "$T/out/stats.c" || fail "no tm_counter_add for balance -= 1"
grep -q '^    return ((long)tm_counter_read(&balance));$' "$T/out/stats.c" || fail "no tm_counter_read for balance"
grep -q '^        tm_counter_add(&lines, (long)(pending));$' "$T/out/log.c" || fail "no tm_counter_add for lines"

# 3. build and run
(cd "$T/out" && . ./tmkit-build.env && make -s >"$T/make.log" 2>&1) || {
    cat "$T/make.log"; fail "the rewritten tree does not build with its own flags"; }
grep -v "note: disable pass tree-fre3" "$T/make.log" | grep -q . && {
    cat "$T/make.log"; fail "the build printed warnings"; }
ldd "$T/out/kvtest" | grep -q "$ROOT/build/lib/libitm.so.1" || fail "kvtest does not load tmkit"
# tmkit's headers are included as a library's: stricter warning flags than the program's own
# (zstd's) say nothing about them either.
printf '#include <tmkit.h>\nint kv_strict(void);\nint kv_strict(void) { return 0; }\n' >"$T/strict.c"
(cd "$T/out" && . ./tmkit-build.env && gcc $CFLAGS -Wall -Wextra -pedantic -Werror \
    -Wdeclaration-after-statement -Wc++-compat -Wformat=2 -Wstrict-aliasing=1 -Wcast-qual \
    -Wshadow -Wstrict-prototypes -Wundef -Wpointer-arith -Wvla -Wwrite-strings \
    -c "$T/strict.c" -o "$T/strict.o" >"$T/strict.log" 2>&1) || {
    cat "$T/strict.log"; fail "tmkit.h warns under stricter flags with tmkit-build.env's CFLAGS"; }
for a in $ALGOS; do
    out=$(TMKIT_ALGO=$a timeout 120 "$T/out/kvtest" 4 20000) || fail "under $a: $out"
done
LIBITM_DIR=$(dirname "$(gcc -print-file-name=libitm.so.1)")
# ITM_DEFAULT_METHOD: with libitm's own choice of method, about one run in ten aborts inside
# libitm at a tm_cond_wait's cancel (libitm aborts the cancel of a transaction it runs
# irrevocably); with a method named, the waits poll as wait.h says (docs/waiting.md)
for m in ml_wt gl_wt; do
    out=$(ITM_DEFAULT_METHOD=$m LD_LIBRARY_PATH=$LIBITM_DIR timeout 120 "$T/out/kvtest" 4 20000) ||
        fail "on GCC's libitm ($m): $out"
done

# 4. the profile
TMKIT_ALGO=gl_wt TMKIT_STATS=$T/quiet.json "$T/out/kvtest" 4 20000 >/dev/null || fail "quiet run"
TMKIT_ALGO=gl_wt TMKIT_STATS=$T/loud.json "$T/out/kvtest" 2 300 3 >/dev/null 2>&1 || fail "loud run"
python3 - "$T/quiet.json" "$T/loud.json" <<'PY' || fail "the profiles: see above"
import json, sys
quiet, loud = (json.load(open(p))["sites"] for p in sys.argv[1:3])
# nothing may make a transaction irrevocable (attempts that run serially for other reasons,
# the single-thread bias at the end or the fallback after many conflicts, are no call's doing)
forced = sum(s["irrevocable_switches"] + s.get("gcc_irrevocable_starts", 0) for s in quiet)
assert forced == 0, f"{forced} attempts went irrevocable with nothing logged"
assert sum(s["commits"] for s in quiet) >= 4 * 20000 * 2, quiet
# with logging, the two thirds of the operations that are lookups print (2 threads x 200): each
# goes irrevocable there, unless it already ran serially (a thread left alone runs biased)
switched = sum(s["irrevocable_switches"] for s in loud)
assert 0 < switched <= 400, f"{switched} irrevocable switches with logging on, expected 1-400"
print("profiles: ok")
PY
echo "advise --apply fixture: ok"

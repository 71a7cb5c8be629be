#!/bin/sh
# `tmkit stat` against a fake tmkit-shmdump (TMKIT_SHMDUMP, the testing hook): a snapshot of a real
# profile of $STATS_PROG whose counters grow with every call; segment choice and its errors,
# --once, --once --json, live refreshes with per-second rates, Ctrl-C.
. "$(dirname "$0")/lib.sh"
export LD_LIBRARY_PATH=$BUILD/lib
T=$ROOT/bin/tmkit
src=$ROOT/tests/unit/prog_stats.c
scratch
cancel_line=$(grep -n SITE_CANCEL "$src" | cut -d: -f1)
expect_rc 0 env TMKIT_ALGO=norec TMKIT_STATS="$d/run.json" "$STATS_PROG"

cat > "$d/fake-shmdump" <<'PY'
#!/usr/bin/env python3
# FAKE_SEGMENTS (space-separated) for --list; NAME: FAKE_PROFILE with every counter multiplied by
# the number of snapshots taken so far (kept in FAKE_STATE), two processes, one alive.
import json, os, sys
segs = os.environ.get("FAKE_SEGMENTS", "").split()
if sys.argv[1:] == ["--list"]:
    for s in segs:
        print(s)
    sys.exit(0)
if len(sys.argv) != 2 or sys.argv[1] not in segs:
    sys.exit(f"tmkit-shmdump: no shared-memory profile {' '.join(sys.argv[1:])}")
state = os.environ["FAKE_STATE"]
n = int(open(state).read()) + 1 if os.path.exists(state) else 1
open(state, "w").write(str(n))
prof = json.load(open(os.environ["FAKE_PROFILE"]))
for s in prof["sites"]:
    for c in prof["counters"]:
        if not c.endswith("_max"):
            s[c] *= n
    s["retries_histogram"] = [v * n for v in s["retries_histogram"]]
prof["segment"] = sys.argv[1]
prof["processes"] = [{"pid": 4100, "alive": True, "program": prof["program"]},
                     {"pid": 4101, "alive": False, "program": prof["program"]}]
if os.environ.get("FAKE_LATIN1"):  # a process's program path in Latin-1: not UTF-8
    prof["processes"][0]["program"] = "/opt/caf\udce9/app"
    sys.stdout.buffer.write((json.dumps(prof, ensure_ascii=False) + "\n").encode("utf-8", "surrogateescape"))
else:
    print(json.dumps(prof))
PY
chmod +x "$d/fake-shmdump"
export TMKIT_SHMDUMP="$d/fake-shmdump" FAKE_PROFILE="$d/run.json" FAKE_STATE="$d/state"

# Which segment: none -> exit 1; several -> listed, exit 1; unknown name -> the dumper's message.
expect_rc 1 env FAKE_SEGMENTS= "$T" stat --once
echo "$ERR" | grep -q "^tmkit stat: no shared-memory profiles" || fail "no segments: $ERR"
expect_rc 1 env FAKE_SEGMENTS="web db" "$T" stat --once
echo "$ERR" | grep -q "several shared-memory profiles" && echo "$ERR" | grep -q "^  db$" || fail "several: $ERR"
expect_rc 1 env FAKE_SEGMENTS="web" "$T" stat --once nosuch
echo "$ERR" | grep -q "^tmkit stat: tmkit-shmdump: no shared-memory profile nosuch" || fail "unknown: $ERR"
expect_rc 1 env TMKIT_SHMDUMP="$d/none" "$T" stat
echo "$ERR" | grep -q "no such file" || fail "missing dumper: $ERR"
expect_rc 2 "$T" stat --json
[ "$(FAKE_SEGMENTS="web db" "$T" stat --list | tr '\n' ' ')" = "web db " ] || fail "--list"

export FAKE_SEGMENTS=web
# Found by tests/fuzz (report target, regressions/report/stat_not_utf8): output that is not
# UTF-8 stopped tmkit stat with UnicodeDecodeError; it is read with U+FFFD in its place.
out=$(FAKE_LATIN1=1 "$T" stat --once 2>"$d/err") || fail "non-UTF-8 snapshot: $(cat "$d/err")"
grep -q Traceback "$d/err" && fail "non-UTF-8 snapshot: traceback: $(cat "$d/err")"
echo "$out" | grep -q "pid 4100 alive  */opt/caf.*/app" || fail "non-UTF-8 snapshot: $out"
# --once: the only segment, cumulative counts, sites symbolized, processes alive.
rm -f "$d/state"
out=$("$T" stat --once) || fail "stat --once failed"
echo "$out" | grep -q "segment web, algorithm norec, 1 of 2 processes alive" || fail "header: $out"
echo "$out" | grep -Eq "^main \(prog_stats.c:$cancel_line\) +1000 +0 +100.0%" || fail "cancel site: $out"
out=$("$T" stat --once --sort starts web | sed -n 6p)
echo "$out" | grep -q "^hammer (prog_stats.c:" || fail "--sort starts: $out"
# --once --json: the snapshot itself (the first one: counters as in the profile).
rm -f "$d/state"
"$T" stat --once --json | python3 -c '
import json, sys
p = json.load(sys.stdin)
assert p["tmkit_stats_version"] == 1 and p["segment"] == "web" and len(p["processes"]) == 2, p
assert sorted(s["abort_cancel"] for s in p["sites"])[-1] == 1000, p
' || fail "--once --json"

# Live: the first frame has totals only, the next ones rates per second; no ANSI codes off a tty.
rm -f "$d/state"
out=$("$T" stat --interval 0.2 -n 3) || fail "live view failed"
[ "$(echo "$out" | grep -c "^tmkit stat: segment web")" = 3 ] || fail "3 frames expected: $out"
echo "$out" | grep -q "$(printf '\033')" && fail "ANSI codes written to a pipe"
echo "$out" | grep -Eq "^main \(prog_stats.c:$cancel_line\) +- +- " || fail "first frame: $out"
echo "$out" | grep -Eq "^main \(prog_stats.c:$cancel_line\) +[0-9]+ +0 +[0-9]+ +100.0% .* 3000 +100.0%$" \
    || fail "rates of the cancel site: $out"
# Ctrl-C ends the live view with status 0 and no traceback (sent once the view is running: a
# loaded machine may take seconds to start Python).
"$T" stat --interval 0.2 > "$d/live.out" 2> "$d/live.err" & pid=$!
i=0; until grep -q "^tmkit stat: segment" "$d/live.out" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 300 ] || { kill $pid; fail "live view never drew a frame"; }; sleep 0.1; done
kill -INT $pid; wait $pid; rc=$?
[ $rc = 0 ] || fail "Ctrl-C: exit $rc, expected 0: $(cat "$d/live.err")"
grep -q Traceback "$d/live.err" && fail "traceback on Ctrl-C: $(cat "$d/live.err")"
echo "stat: ok"

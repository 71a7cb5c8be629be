#!/bin/sh
# TMKIT_STATS_SHM: a forking program (parent + 3 children, 2 threads each) adds into one shared
# segment under every algorithm; a running program's counters grow between two snapshots; a
# killed process leaves a readable segment and is reported dead; the next run starts from zero;
# bad names are refused. The reader is build/bin/tmkit-shmdump, polled by `tmkit stat`.
. "$(dirname "$0")/lib.sh"
export LD_LIBRARY_PATH=$BUILD/lib
DUMP=$BUILD/bin/tmkit-shmdump
name=tmkit-test-$$
d=$(mktemp -d)
trap 'rm -rf "$d"; rm -f /dev/shm/tmkit.$name' EXIT
N=20000
check() { # check FILE WANT_COMMITS WANT_PROCS: the site SITE_WORK sums the processes
    python3 - "$1" "$2" "$3" "$ROOT/tests/unit/prog_shm.c" <<'PY' || fail "snapshot check failed: $(cat "$1")"
import json, subprocess, sys
path, want, procs, src = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
snap = json.load(open(path))
assert snap["tmkit_stats_version"] == 1, snap
line = next(i + 1 for i, l in enumerate(open(src).read().splitlines()) if "/* SITE_WORK */" in l)
work = []
for s in snap["sites"]:
    out = subprocess.run(["addr2line", "-e", s["site_object"], s["site_offset"]],
                         capture_output=True, text=True).stdout
    if out.strip().endswith(f"prog_shm.c:{line}"):
        work.append(s)
assert len(work) == 1, ("one merged site expected", snap["sites"])
w = work[0]
assert w["commits"] == want, (w["commits"], want)
aborts = sum(w[k] for k in snap["counters"] if k.startswith("abort_"))
assert w["starts"] == w["commits"] + aborts, w
assert sum(w["retries_histogram"]) == w["commits"], w
ps = [p for p in snap["processes"] if p["pid"]]
assert len(ps) == procs, ps
assert sum(p["commits"] for p in ps) == want, ps
PY
}
await_pid() { # await_pid PID WHAT: until the segment lists PID (snapshot left in $d/a.json)
    i=0; until "$DUMP" $name > "$d/a.json" 2>/dev/null && grep -q "\"pid\": $1" "$d/a.json"; do
        i=$((i + 1)); [ $i -lt 100 ] || fail "$2 never appeared"; sleep 0.1; done
}
for algo in $ALGOS; do
    expect_rc 0 env TMKIT_ALGO=$algo TMKIT_STATS_SHM=$name "$SHM_PROG" fork $N
    "$DUMP" $name > "$d/snap.json" || fail "$algo: tmkit-shmdump failed"
    check "$d/snap.json" $((4 * N)) 4
    grep -q "\"algorithm\": \"$algo\"" "$d/snap.json" || fail "$algo: algorithm not recorded"
done

# A running program: counters grow; the segment shows it live; after SIGKILL it is "died" and
# its counts are still there.
env TMKIT_STATS_SHM=$name "$SHM_PROG" run "$d/stop" & pid=$!
await_pid $pid "the running program"
sleep 0.3
"$ROOT/bin/tmkit" stat --once --json $name > "$d/b.json" || fail "tmkit stat --once --json failed"
"$ROOT/bin/tmkit" stat --once $name > "$d/table.txt" || fail "tmkit stat --once failed"
grep -q "prog_shm.c:" "$d/table.txt" || fail "tmkit stat does not name the site: $(cat "$d/table.txt")"
python3 - "$d/a.json" "$d/b.json" $pid <<'PY' || fail "counters did not grow"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
pid = int(sys.argv[3])
pa = next(p for p in a["processes"] if p["pid"] == pid)
pb = next(p for p in b["processes"] if p["pid"] == pid)
assert pb["alive"] and pb["state"] == "live", pb
assert pb["commits"] > pa["commits"], (pa, pb)
PY
kill -9 $pid; wait $pid 2>/dev/null
"$DUMP" $name > "$d/c.json" || fail "segment unreadable after a crash"
grep -q '"state": "died"' "$d/c.json" || fail "killed process not reported dead: $(cat "$d/c.json")"

# The next run reuses the segment from zero.
expect_rc 0 env TMKIT_STATS_SHM=$name "$SHM_PROG" fork 2000
"$DUMP" $name > "$d/snap.json"
check "$d/snap.json" 8000 4

# Batches of whole attempts (runtime/stats/stats_batch.h): a child forked in the middle of one
# counts none of the parent's attempts (private files); with a shared segment there are none, so
# a thread that stops transacting shows all of its attempts live, and a process that ends
# without its exit hooks (_exit, kill -9, SIGSEGV, execve) leaves all of them in the segment.
expect_rc 0 env TMKIT_STATS_SHM=$name "$SHM_PROG" forkmid 3000
"$DUMP" $name > "$d/snap.json"
check "$d/snap.json" 9000 2
expect_rc 0 env TMKIT_STATS="$d/fm.json" "$SHM_PROG" forkmid 3000
python3 - "$d"/fm.json* <<'PY' || fail "forkmid profiles: $(ls "$d")"
import json, sys
parent, child = sys.argv[1], [p for p in sys.argv[2:] if p != sys.argv[1]]
commits = lambda p: sum(s["commits"] for s in json.load(open(p))["sites"])
assert len(child) == 1, child
assert commits(parent) == 6000 and commits(child[0]) == 3000, (commits(parent), commits(child[0]))
PY
env TMKIT_STATS_SHM=$name "$SHM_PROG" idle 5000 "$d/stop2" & pid=$!
await_pid $pid "the idle program"
sleep 0.5
"$DUMP" $name > "$d/a.json"
touch "$d/stop2"; wait $pid || fail "idle program failed"
"$DUMP" $name > "$d/b.json"
python3 - "$d/a.json" "$d/b.json" $pid <<'PY' || fail "live lag of a batch: $(cat "$d/a.json")"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
pid = int(sys.argv[3])
live = next(p for p in a["processes"] if p["pid"] == pid)["commits"]
done = next(p for p in b["processes"] if p["pid"] == pid)["commits"]
assert live == 5000 and done == 5000, (live, done)
PY
env TMKIT_STATS_SHM=$name "$SHM_PROG" idle 5000 "$d/stop3" & pid=$!
await_pid $pid "the idle program"
kill -9 $pid; wait $pid 2>/dev/null
"$DUMP" $name > "$d/k.json"
python3 - "$d/k.json" $pid <<'PY' || fail "kill -9 lost counts: $(cat "$d/k.json")"
import json, sys
p = next(p for p in json.load(open(sys.argv[1]))["processes"] if p["pid"] == int(sys.argv[2]))
assert p["commits"] == 5000 and p["state"] == "died", p
PY
site_commits() { # site_commits FILE MARKER [PID]: commits of the site on the line with /* MARKER */
    python3 - "$1" "$2" "$ROOT/tests/unit/prog_shm.c" <<'PY'
import json, subprocess, sys
path, marker, src = sys.argv[1:4]
line = next(i + 1 for i, l in enumerate(open(src).read().splitlines()) if f"/* {marker} */" in l)
n = 0
for s in json.load(open(path))["sites"]:
    out = subprocess.run(["addr2line", "-e", s["site_object"], s["site_offset"]],
                         capture_output=True, text=True).stdout
    if out.strip().endswith(f"prog_shm.c:{line}"):
        n += s["commits"]
print(n)
PY
}
# A thread blocked in read() while another keeps transacting: its site is exact in the live view.
for algo in $ALGOS; do
    rm -f "$d/stop4"
    env TMKIT_ALGO=$algo TMKIT_STATS_SHM=$name "$SHM_PROG" blocked 3001 "$d/stop4" & pid=$!
    await_pid $pid "the blocked program"
    sleep 0.3
    "$DUMP" $name > "$d/bl.json"
    got=$(site_commits "$d/bl.json" SITE_WORK)
    busy=$(site_commits "$d/bl.json" SITE_BUSY)
    touch "$d/stop4"; wait $pid || fail "$algo: blocked program failed"
    [ "$got" = 3001 ] || fail "$algo: a blocked thread's site shows $got commits live, not 3001"
    [ "$busy" -gt 0 ] || fail "$algo: the busy site shows no commits"
done
# Killed inside a transaction (SIGKILL from the transaction's body, after 2K - 1 commits at its
# site over two threads): the segment holds exactly the committed ones, whatever the mode (an
# uninstrumented attempt is counted by its commit, not when it starts: docs/stats.md).
for algo in $ALGOS; do
    for alone in "" alone; do
        env TMKIT_ALGO=$algo TMKIT_STATS_SHM=$name "$SHM_PROG" killin 500 $alone 2>/dev/null
        "$DUMP" $name > "$d/ki.json" || fail "$algo: killin: segment unreadable"
        got=$(site_commits "$d/ki.json" SITE_KILLIN)
        want=$([ -n "$alone" ] && echo 499 || echo 999)
        [ "$got" = $want ] || fail "$algo: killed inside a transaction ${alone:+(one thread)}: the segment shows $got commits, not $want"
    done
done
# kill -9 in the middle of a run: the segment holds every transaction whose commit returned
# (the program counts them in a shared file right after each commit). A thread killed between
# a commit and its count adds one: at most one per thread (killin above is exact).
for algo in $ALGOS; do
    env TMKIT_ALGO=$algo TMKIT_STATS_SHM=$name "$SHM_PROG" killmid "$d/counts" & pid=$!
    await_pid $pid "the killmid program"
    sleep 0.3
    kill -9 $pid; wait $pid 2>/dev/null
    "$DUMP" $name > "$d/km.json"
    got=$(site_commits "$d/km.json" SITE_KILLMID)
    done=$(python3 -c 'import struct,sys; print(sum(struct.unpack("2q", open(sys.argv[1],"rb").read())))' "$d/counts")
    [ "$done" -gt 0 ] && [ "$got" -ge "$done" ] && [ "$got" -le $((done + 2)) ] ||
        fail "$algo: kill -9 mid-run: the segment shows $got commits, the program counted $done"
done
for how in _exit segv exec; do
    env TMKIT_STATS_SHM=$name "$SHM_PROG" end 7000 $how 2>/dev/null
    "$DUMP" $name > "$d/e.json" || fail "$how: segment unreadable"
    python3 - "$d/e.json" $how <<'PY' || fail "ending by $2 lost counts: $(cat "$d/e.json")"
import json, sys
ps = [p for p in json.load(open(sys.argv[1]))["processes"] if p["pid"]]
assert sum(p["commits"] for p in ps) == 7000, ps
PY
done

# tmkit run --live-name sets the variable; bad names are refused by the runtime and the CLI.
expect_rc 0 "$ROOT/bin/tmkit" run --live-name $name -- "$SHM_PROG" fork 2000
"$DUMP" $name > "$d/snap.json"
check "$d/snap.json" 8000 4
expect_rc 2 env TMKIT_STATS_SHM=../x "$SHM_PROG" fork 10
echo "$ERR" | grep -q "not a valid segment name" || fail "bad name message: $ERR"
expect_rc 2 "$ROOT/bin/tmkit" run --live-name 'a/b' -- "$SHM_PROG" fork 10
expect_rc 1 "$DUMP" no-such-segment-$$
"$DUMP" --list | grep -qx "$name" || fail "--list does not show $name"
expect_rc 0 "$DUMP" --rm $name
[ ! -e /dev/shm/tmkit.$name ] || fail "--rm left the segment"
echo "shm: ok"

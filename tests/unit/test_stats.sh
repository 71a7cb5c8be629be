#!/bin/sh
# TMKIT_STATS: the JSON profile attributes cancels, serializing calls and conflicts to the right
# source lines (mapped from object + offset with addr2line, as the tools do), and the table form
# goes to stderr. Without TMKIT_STATS nothing is written.
. "$(dirname "$0")/lib.sh"
export LD_LIBRARY_PATH=$BUILD/lib
src=$ROOT/tests/unit/prog_stats.c
scratch
for algo in $ALGOS; do
    expect_rc 0 env TMKIT_ALGO=$algo TMKIT_STATS=$d/$algo.json "$STATS_PROG" "$d/$algo.count"
    [ -z "$ERR" ] || fail "$algo: unexpected stderr: $ERR"
    python3 - "$d/$algo.json" "$src" "$algo" "$d/$algo.count" <<'PY' || fail "$algo: profile check failed"
import json, subprocess, sys
path, src, algo, count_file = sys.argv[1:]
increments = int(open(count_file).read())
assert increments >= 400000, increments
prof = json.load(open(path))
assert prof["tmkit_stats_version"] == 1 and prof["algorithm"] == algo, prof
lines = open(src).read().splitlines()
def line_of(marker):
    return next(i + 1 for i, l in enumerate(lines) if marker in l)
def where(site, key):
    out = subprocess.run(["addr2line", "-e", site[key + "_object"], site[key + "_offset"]],
                         capture_output=True, text=True).stdout.strip()
    return int(out.rsplit(":", 1)[1].split()[0]) if ":" in out else -1
sites = {}
for s in prof["sites"]:
    if "site_object" in s and s["site_object"].endswith("unit_prog_stats"):
        sites.setdefault(where(s, "site"), []).append(s)
def site(marker):
    found = sites.get(line_of(marker))
    assert found, f"no site at line {line_of(marker)} ({marker}); have {sorted(sites)}"
    return found[0]
c = site("SITE_CANCEL")
assert c["abort_cancel"] == 1000 and c["commits"] == 0, c
for k in ("abort_read_conflict", "abort_write_conflict", "abort_validation"):
    assert c[k] == 0, (k, c)
p = site("SITE_PRINTF")
assert p["commits"] == 100, p
assert p["irrevocable_switches"] >= 50 or p["uninstrumented_attempts"] == 100, p
if p["irrevocable_switches"]:
    assert where(p, "irrevocable_call") == line_of("UNSAFE_CALL"), (where(p, "irrevocable_call"), p)
h = site("SITE_COUNTER")
assert h["commits"] == increments, (increments, h)
aborts = sum(h[k] for k in ("abort_read_conflict", "abort_write_conflict", "abort_validation",
                            "abort_serial"))
assert h["starts"] == h["commits"] + aborts + h["abort_cancel"] + h["abort_retry"], h
assert sum(h["retries_histogram"]) == h["commits"], h
if algo in ("norec", "orec_lazy", "gl_wt"):
    assert aborts > 0, f"two threads on one counter never conflicted under {algo}: {h}"
# Sampled time: each of two alternating sites is timed, the 20 us one at about 20 us a commit
# (wide bounds: a loaded machine stretches it, never shortens it below the spin).
lng, sht = site("SITE_LONG"), site("SITE_SHORT")
assert lng["commits"] == 2000 and sht["commits"] == 20000, (lng, sht)
us = lambda s: s["cycles_committed"] / prof["tsc_hz"] / s["commits"] * 1e6
assert 14 <= us(lng) <= 400, (us(lng), lng)
assert 0 < us(sht) < us(lng) / 4, (us(sht), us(lng), sht)
PY
done
# tmkit run --stats + tmkit report: sites as function (file:line), serializing call named.
expect_rc 0 "$ROOT/bin/tmkit" run --algo=norec --stats="$d/r.json" "$STATS_PROG"
cancel_line=$(grep -n SITE_CANCEL "$src" | cut -d: -f1)
unsafe_line=$(grep -n UNSAFE_CALL "$src" | cut -d: -f1)
out=$("$ROOT/bin/tmkit" report "$d/r.json") || fail "tmkit report failed"
echo "$out" | grep -q "main (prog_stats.c:$cancel_line) .*100.0%.*cancel 1000" || fail "cancel site not reported: $out"
echo "$out" | grep -q "serialized by main (prog_stats.c:$unsafe_line)" || fail "serializing call not reported: $out"
echo '{"tmkit_stats_version": 99, "sites": []}' > "$d/bad.json"
expect_rc 1 "$ROOT/bin/tmkit" report "$d/bad.json"
echo "$ERR" | grep -q "unsupported profile version" || fail "bad version not rejected clearly: $ERR"
rm -f "$d/r.json" "$d/bad.json"
expect_rc 0 env TMKIT_STATS=- "$STATS_PROG"
echo "$ERR" | grep -q "tmkit statistics" || fail "no table on stderr: $ERR"
echo "$ERR" | grep -q "unit_prog_stats+0x" || fail "sites not shown: $ERR"
expect_rc 2 env TMKIT_STATS= "$STATS_PROG"
# adaptive reports the epochs it ran in each mode; with 6 transacting threads (4+) it also
# tries orec_eager, never a redo-log mode (norec, orec_lazy) unless TMKIT_ADAPTIVE_MODES=all,
# and every mode keeps the counters exact (the program checks them).
expect_rc 0 env TMKIT_ALGO=adaptive TMKIT_STATS=$d/adaptive6.json "$PROG" 400000 6
python3 - "$d/adaptive6.json" <<'PY' || fail "adaptive epochs: $(cat "$d/adaptive6.json" | head -c 400)"
import json, sys
p = json.load(open(sys.argv[1]))
e, c, pr = p["adaptive_epochs"], p["adaptive_cycles_per_commit"], p["adaptive_probes"]
modes = {"gl_wt", "serial", "orec_eager", "norec", "orec_lazy", "htm"}
assert set(e) == modes == set(c) == set(pr), (e, c, pr)
# htm is in the set where the CPU has RTM (core/htm.c)
assert [m for m in p["adaptive_modes"] if m != "htm"] == ["gl_wt", "serial", "orec_eager"], p["adaptive_modes"]
# Epochs are whole epochs of time: a probe cut short at its glance (half an epoch) may add
# none, so whether orec_eager was tried is in its probes (epochs alone failed CI once the
# serial lock's passive waiting made serial win this counter within 26 epochs).
assert pr["orec_eager"] >= 1 and sum(e.values()) >= 10, (e, pr)
assert c["orec_eager"] > 0, c
assert e["norec"] == e["orec_lazy"] == pr["norec"] == pr["orec_lazy"] == 0, (e, pr)
# orec_eager was tried, so adaptive switched to it and back (or stayed); the mode it ran most
# has been measured
assert p["adaptive_switches"] >= 1, p["adaptive_switches"]
assert c[max(e, key=e.get)] > 0, (e, c)
# Attempts counted whole at their start (biased, and serial-mode ones under the serial lock)
# keep every site's sums exact: starts = commits + aborts, one retry count per commit, and
# serial and uninstrumented attempts are attempts.
for s in p["sites"]:
    ab = sum(v for k, v in s.items() if k.startswith("abort_"))
    assert s["starts"] == s["commits"] + ab, s
    assert sum(s["retries_histogram"]) == s["commits"], s
    assert s["serial_attempts"] <= s["starts"] and s["uninstrumented_attempts"] <= s["starts"], s
if e["serial"]:
    assert any(s["serial_attempts"] for s in p["sites"]), (e, p["sites"])
PY
"$ROOT/bin/tmkit" report "$d/adaptive6.json" | grep -q "adaptive epochs: gl_wt [0-9]*, serial [0-9]*, orec_eager [0-9]*, norec 0, orec_lazy 0, htm [0-9]*; probes: gl_wt [0-9]*, serial [0-9]*, orec_eager [1-9][0-9]*, norec 0, orec_lazy 0, htm [0-9]*" ||
    fail "tmkit report does not show the adaptive epochs: $("$ROOT/bin/tmkit" report "$d/adaptive6.json" | head -3)"
# TMKIT_ADAPTIVE_MODES=all: the redo-log modes too, and orec_lazy with the orec_eager at 4+.
# The rotation's back-off doubles (2, 4, 8, ... epochs), so four probes need some 30 epochs
# (~1.5 ms each); under load 400,000 transactions once ran 8. The run is repeated longer until
# it lasts 60 epochs (2M transactions: 90-270 epochs with 4 busy loops beside it).
for n in 2000000 8000000; do
    expect_rc 0 env TMKIT_ALGO=adaptive TMKIT_ADAPTIVE_MODES=all TMKIT_STATS=$d/adaptive6all.json "$PROG" $n 6
    python3 -c 'import json, sys; sys.exit(sum(json.load(open(sys.argv[1]))["adaptive_epochs"].values()) < 60)' "$d/adaptive6all.json" && break
done
python3 - "$d/adaptive6all.json" <<'PY' || fail "adaptive (all modes): $(head -c 600 "$d/adaptive6all.json")"
import json, sys
p = json.load(open(sys.argv[1]))
pr, c = p["adaptive_probes"], p["adaptive_cycles_per_commit"]
assert [m for m in p["adaptive_modes"] if m != "htm"] == ["gl_wt", "serial", "orec_eager", "norec", "orec_lazy"], p
# the challengers are probed in turn: at least four of them in this run (a sixth, htm, is in
# the set only where the CPU has RTM, and the run may end before the rotation reaches it), and
# every mode probed, or started in, is measured (elsewhere htm is listed with zeros)
inset = set(p["adaptive_modes"])
assert sum(p["adaptive_epochs"].values()) >= 60, ("too few epochs to judge", p["adaptive_epochs"])
assert sum(1 for m in pr if pr[m] >= 1) >= 4, (pr, c)
assert all(c[m] > 0 for m in inset if pr[m] >= 1 or m == p["adaptive_modes"][0]), (pr, c)
assert all(pr[m] == c[m] == 0 for m in c if m not in inset), (pr, c)
PY
expect_rc 0 env TMKIT_ALGO=adaptive TMKIT_STATS=$d/adaptive2.json "$PROG" 100000 2
python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["adaptive_probes"]; assert p["orec_lazy"] == p["norec"] == 0, p' "$d/adaptive2.json" ||
    fail "a redo-log mode tried by the write-through default: $(head -c 600 "$d/adaptive2.json")"
# Adaptive probes its challengers in turn, so each is measured again and again. The rotation
# once moved at every epoch instead of at every probe: with two challengers and an even
# back-off it always landed on the same one, and the other ran (and was measured) only in the
# first epochs: 1 epoch of norec in a 1 s run of empty transactions at 2 threads.
# Epochs are counted in time, decisions happen at commits: beside a CPU hog a thread preempted
# in an epoch stretches it, and a 1.5 s run made ~960 epochs of time but too few decisions to
# reach the 8th probe after the winner's (gl_wt probed once, 2026-12-04, with a busy loop
# beside it). So a run whose check fails is repeated once twice as long; a rotation stuck on
# one challenger fails both.
rotation() { # rotation SECONDS: run and check; the check's message in $d/rotation.err
    expect_rc 0 env TMKIT_ALGO=adaptive TMKIT_ADAPTIVE_MODES=all TMKIT_STATS=$d/rotation.json "$BUILD/bin/micro-tm" --mode empty --threads 2 --seconds "$1"
    python3 - "$d/rotation.json" 2>"$d/rotation.err" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
inset = set(doc["adaptive_modes"])  # htm only where the CPU has RTM
e = {m: n for m, n in doc["adaptive_epochs"].items() if m in inset}
p = {m: n for m, n in doc["adaptive_probes"].items() if m in inset}
# ~1000 epochs; the back-off doubles from 2 to at most 256 epochs, so at least 6 probes follow
# the first four (one per unmeasured mode; the orec modes are in the set from 2 threads): with
# four challengers in turn, 2 or more for each but the winner, which is probed only until it
# wins. (Stuck on one challenger, the others would have 1.)
assert sum(e.values()) >= 300, ("too few epochs to judge", e)
winner = max(e, key=e.get)
assert all(n >= 2 for m, n in p.items() if m != winner), (p, e)
PY
}
rotation 1.5 || rotation 3 ||
    fail "adaptive challengers not probed in turn: $(tail -1 "$d/rotation.err")"
rm -f "$d/rotation.err"
expect_rc 0 env TMKIT_ALGO=adaptive TMKIT_STATS=- "$PROG" 1000 2
echo "$ERR" | grep -q "adaptive epochs (~1.5 ms each) by mode: gl_wt [0-9]* serial [0-9]* orec_eager [0-9]* norec [0-9]* orec_lazy [0-9]* htm [0-9]*; probes: gl_wt [0-9]* serial [0-9]* orec_eager [0-9]* norec [0-9]* orec_lazy [0-9]* htm [0-9]*; [0-9]* switches" ||
    fail "no adaptive epochs in the table: $ERR"
echo "$ERR" | grep -q "adaptive last cost (TSC cycles per commit, 0 = not measured): gl_wt [0-9]* serial [0-9]* orec_eager [0-9]* norec [0-9]* orec_lazy [0-9]*" ||
    fail "no adaptive costs in the table: $ERR"
rm -f "$d"/*.count
cd "$d" && expect_rc 0 "$STATS_PROG" && [ "$(ls "$d" | grep -vc json)" = 0 ] || fail "files written without TMKIT_STATS"
echo "stats: ok"

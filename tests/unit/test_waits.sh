#!/bin/sh
# The profile counts blocking waits per site (tm_retry, tm_cond_wait: retry_sleeps,
# retry_wakeups, retry_spurious, cycles_asleep, and each wait as an abort_retry), the sums stay
# exact, and `tmkit report` shows them. The programs run a fifth of their conformance counts
# (TEST_SCALE_DIV=5; conf.* runs them in full): every site still waits thousands of times.
. "$(dirname "$0")/lib.sh"
export LD_LIBRARY_PATH=$BUILD/lib
scratch
for prog in mt_retry_queue mt_cond_buffer; do
    for algo in norec gl_wt serialirr; do
        expect_rc 0 env TEST_THREADS=4 TEST_SCALE_DIV=5 TMKIT_ALGO=$algo TMKIT_STATS="$d/$prog.$algo.json" \
            "$BUILD/tests/conf_${prog}_O2"
        python3 - "$d/$prog.$algo.json" <<'PY' || fail "$prog under $algo: $(head -c 800 "$d/$prog.$algo.json")"
import json, sys
p = json.load(open(sys.argv[1]))
for k in ("retry_sleeps", "retry_wakeups", "retry_spurious", "cycles_asleep"):
    assert k in p["counters"], k
sites = [s for s in p["sites"] if s["commits"] >= 1000]
assert len(sites) >= 2, sites
for s in sites:
    aborts = sum(v for k, v in s.items() if k.startswith("abort_"))
    assert s["starts"] == s["commits"] + aborts, s
    # every sleep began with a rolled-back attempt; a wake-up ends a sleep
    assert 0 < s["retry_sleeps"] <= s["abort_retry"], s
    assert s["retry_wakeups"] <= s["retry_sleeps"] and s["retry_spurious"] <= s["abort_retry"], s
    assert s["cycles_asleep"] > 0, s
PY
    done
done
out=$("$ROOT/bin/tmkit" report "$d/mt_retry_queue.norec.json")
echo "$out" | grep -q "producer (mt_retry_queue.c:[0-9]*).*retry [0-9]*.*waits [1-9][0-9]* (woken [0-9]*, spurious [0-9]*, [0-9.]* ms asleep)" ||
    fail "tmkit report does not show the waits: $out"
# prog_waits: 80 threads wait at a gate 3 times (more waiters than the runtime's 64 slots: the
# writers' walk of every descriptor; a lost wake-up hangs, rc 124). Two threads take turns
# 20,000 times each, waiting in tm_retry: the waiter that raises the waiters' flag forces a
# barrier on every thread, later waiters do not while the flag stays up (ext/waiters.c; until
# 2026-11-27 every wait made one). Then one thread runs alone: the flag goes down after its
# commits find no waiter, and the serial modes give it the bias back.
for algo in $ALGOS; do
    expect_rc 0 timeout 60 env LD_PRELOAD="$SLEEPS_SHIM" TMKIT_ALGO=$algo \
        TMKIT_STATS="$d/pw.$algo.json" "$WAITS_PROG" 20000 100000
    mb=$(echo "$ERR" | sed -n 's/^count_membarriers: //p')
    python3 - "$d/pw.$algo.json" "$mb" "$algo" <<'PY' || fail "prog_waits under $algo: $ERR"
import json, sys
p = json.load(open(sys.argv[1]))
mb, algo = int(sys.argv[2]), sys.argv[3]
gate = [s for s in p["sites"] if s["commits"] == 240]
assert len(gate) == 1 and gate[0]["abort_retry"] >= 80, p["sites"]  # 80 x 3 passes
turns = max(p["sites"], key=lambda s: s["abort_retry"])
alone = max(p["sites"], key=lambda s: s["commits"])
assert turns["commits"] == 40000 and turns["abort_retry"] > 1000, turns
# a few for the bias (a second thread registering) and the first wait; not one a wait
assert mb <= 50, (mb, "membarrier calls for", turns["abort_retry"], "waits")
if algo in ("serialirr", "adaptive"):
    assert alone["commits"] == 100000 and alone["uninstrumented_attempts"] >= 50000, alone
PY
done
echo "waits: ok"

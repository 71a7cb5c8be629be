#!/bin/sh
# bench/scripts/memcached_load.py's arithmetic, without servers: memcaslap's report parsed, and
# the summary's ratios taken within a round (a round's lock run is the base of that round's
# others, whatever the other rounds measured), CPU ratios the lock build's time over the other's.
. "$(dirname "$0")/lib.sh"
python3 - "$ROOT/bench/scripts" <<'PY' || fail "memcached_load.py's summary"
import sys
sys.path.insert(0, sys.argv[1])
import memcached_load as m
out = """cmd_get: 214646
cmd_set: 23857
get_misses: 0

Run time: 4.0s Ops: 238503 TPS: 59615 Net_rate: 66.7M/s
"""
assert m.parse_memcaslap(out) == (59615, 214646, 23857, 4.0), m.parse_memcaslap(out)
assert m.parse_memcaslap("connection refused") is None
def run(rnd, server, ops, cpu):
    return {"round": rnd, "server": server, "threads": 2, "ops_per_s": ops, "cpu_us_per_op": cpu}
rows = [run(1, "lock", 1000, 10.0), run(1, "tm-adaptive", 900, 12.5),
        run(2, "lock", 10000, 10.0), run(2, "tm-adaptive", 11000, 8.0),
        run(3, "lock", 5000, 10.0), run(3, "tm-adaptive", 4000, 10.0)]
s = m.summarize(rows, ["lock", "tm-adaptive"], [2])
x = s["tm-adaptive -t2"]
assert x["runs"] == 3 and x["median"] == 4000 and (x["min"], x["max"]) == (900, 11000), x
assert x["ratios"] == [0.8, 0.9, 1.1] and x["ratio_median"] == 0.9, x  # not 4000 / 5000
assert x["cpu_ratios"] == [0.8, 1.0, 1.25] and x["cpu_ratio_median"] == 1.0, x
assert s["lock -t2"]["ratio_median"] == 1.0 and s["lock -t2"]["cpu_us_per_op_median"] == 10.0, s
PY
echo "ok: memcached_load.py parses memcaslap and takes ratios within rounds"

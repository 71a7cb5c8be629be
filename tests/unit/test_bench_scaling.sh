#!/bin/sh
# `tmkit bench`'s issue-25 section (tools/tmkit_cli/bench/scaling.py) on made-up samples whose
# ratios are worked out by hand below: ratios pair runs of the same repeat, a repeat that lacks
# one side is left out, the cap is 2 x gl_wt(1) / default(1), rows whose runs are missing are
# dropped, and a run without both thread counts has no section.
. "$(dirname "$0")/lib.sh"
PYTHONPATH=$ROOT/tools python3 - <<'PY' || fail "scaling section: see above"
from tmkit_cli.bench.results import Results
from tmkit_cli.bench.scaling import paired, scaling_rows, scaling_section

res = Results()
D = "tmkit-adaptive"
def put(case, thr, cfg, per_repeat):
    for rep, ops in per_repeat.items():
        res.add((case, thr, cfg), {"ok": "1", "ops_per_s": str(ops), "ns_per_op": "1"}, 0, "", rep)

T = "rbtree-65536-u20"
put(T, 1, D, {0: 10.0, 1: 20.0, 2: 40.0})
put(T, 2, D, {0: 12.0, 1: 30.0})            # repeat 2 has no 2-thread run
put(T, 1, "tmkit-gl_wt", {0: 6.0, 1: 14.0, 2: 16.0})
put(T, 2, "tmkit-gl_wt", {0: 12.0, 1: 21.0, 2: 40.0})
put(T, 2, "mutex", {0: 4.0, 1: 10.0, 2: 1.0})
put("disjoint", 1, "tmkit-orec_eager", {0: 5.0, 1: 5.0})
put("disjoint", 2, "tmkit-orec_eager", {0: 10.0, 1: 11.0})

got = dict(scaling_rows(res, D, [1, 2]))
want = {
    # 12/10 = 1.2, 30/20 = 1.5: median 1.35 (repeat 2 unpaired)
    T + ": default 2 thr / its 1 thr (goal 1.6)": 1.35,
    # 2 x (0.6, 0.7, 0.4): median 1.2
    T + ": cap: 2 x gl_wt 1 thr / default 1 thr": 1.2,
    # 2.0, 1.5, 2.5: median 2.0
    T + ": gl_wt 2 thr / gl_wt 1 thr": 2.0,
    # 3.0, 3.0: median 3.0
    T + ": default / mutex, 2 thr (goal 1.3)": 3.0,
    # 1.0, 30/21: median 1.2142...
    T + ": default / gl_wt, 2 thr": (1.0 + 30.0 / 21.0) / 2,
    # 2.0, 2.2: median 2.1
    "disjoint: orec_eager 2 thr / its 1 thr (goal 1.7)": 2.1,
}
assert set(got) == set(want), sorted(set(got) ^ set(want))  # no hash-set runs: no hash-set rows
for k, v in want.items():
    assert abs(got[k] - v) < 1e-9, (k, got[k], v)
assert paired(res, (T, 2, D), ("nothing", 1, D)) is None
lines = scaling_section(res, D, [1, 2])
assert lines[0] == "## Parallel speed (issue 25)", lines
assert f"| {T}: default 2 thr / its 1 thr (goal 1.6) | 1.35 |" in lines, lines
assert scaling_rows(res, D, [1]) == [] and scaling_section(res, D, [2]) == []
assert scaling_section(Results(), D, [1, 2]) == []
print("bench scaling: ok")
PY

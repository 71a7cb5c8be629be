"""The issue-3 goal measures of a `tmkit bench` run (summary.md's "Goal measures" table): per
tmkit algorithm (and libitm-ml_wt), the 1-thread time ratios, per-access costs and instruction
counts, the 2-thread throughput ratios and the geometric means."""
import math


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def goals(res, configs, threads):
    """The issue's goal ratios, for each tmkit algorithm (and libitm-ml_wt for reference)."""
    tm = [c.name for c in configs if c.name.startswith("tmkit-")]
    rows = []

    def ns(case, thr, cfg):
        return res.median_ns((case, thr, cfg))

    def per_access(kind, cfg):
        a, b = ns(f"{kind}-64", 1, cfg), ns(f"{kind}-16", 1, cfg)
        return (a - b) / 48 if a is not None and b is not None else None

    for cfg in tm + ["libitm-ml_wt"]:
        r = {"config": cfg}
        e, m = ns("empty", 1, cfg), ns("empty", 1, "mutex")
        r["empty_1t_vs_mutex"] = e / m if e and m else None
        c, cm = ns("counter", 1, cfg), ns("counter", 1, "mutex")
        r["counter_1t_vs_mutex"] = c / cm if c and cm else None
        r["read_ns"] = per_access("reads", cfg)
        r["write_ns"] = per_access("writes", cfg)
        ir1, ir2 = res.instr.get(("reads-64", cfg)), res.instr.get(("reads-16", cfg))
        r["read_instr"] = (ir1 - ir2) / 48 if ir1 is not None and ir2 is not None else None
        iw1, iw2 = res.instr.get(("writes-64", cfg)), res.instr.get(("writes-16", cfg))
        r["write_instr"] = (iw1 - iw2) / 48 if iw1 is not None and iw2 is not None else None
        if 2 in threads:
            r["disjoint_2t_vs_mutex"] = res.ratio(("disjoint", 2, cfg), "mutex")
            r["disjoint_2t_vs_libitm"] = res.ratio(("disjoint", 2, cfg), "libitm")
            r["counter_2t_vs_mutex"] = res.ratio(("counter", 2, cfg), "mutex")
            r["lru_2t_vs_mutex"] = res.ratio(("lru-zipf1", 2, cfg), "mutex")
        if 1 in threads:
            r["lru_1t_vs_mutex"] = res.ratio(("lru-zipf1", 1, cfg), "mutex")
        for thr in threads:
            keys = [k for k in res.samples if k[1] == thr and k[2] == cfg]
            r[f"geomean_{thr}t_vs_libitm"] = geomean([res.ratio(k, "libitm") for k in keys])
            r[f"geomean_{thr}t_vs_mutex"] = geomean([res.ratio(k, "mutex") for k in keys])
        rows.append(r)
    return rows


GOAL_COLUMNS = [
    ("empty_1t_vs_mutex", "empty txn time / mutex lock+unlock (1 thr)", "{:.2f}"),
    ("counter_1t_vs_mutex", "counter txn time / mutex (1 thr)", "{:.2f}"),
    ("read_ns", "ns per instrumented read (1 thr)", "{:.2f}"),
    ("write_ns", "ns per instrumented write (1 thr)", "{:.2f}"),
    ("read_instr", "instructions per read", "{:.1f}"),
    ("write_instr", "instructions per write", "{:.1f}"),
    ("disjoint_2t_vs_mutex", "disjoint updates, 2 thr, throughput / mutex", "{:.2f}"),
    ("disjoint_2t_vs_libitm", "disjoint updates, 2 thr, throughput / libitm", "{:.2f}"),
    ("counter_2t_vs_mutex", "shared counter, 2 thr, throughput / mutex", "{:.2f}"),
    ("lru_1t_vs_mutex", "LRU Zipf s=1, 1 thr, throughput / mutex", "{:.2f}"),
    ("lru_2t_vs_mutex", "LRU Zipf s=1, 2 thr, throughput / mutex", "{:.2f}"),
    ("geomean_1t_vs_mutex", "geometric mean over cases, 1 thr, / mutex", "{:.2f}"),
    ("geomean_2t_vs_mutex", "geometric mean over cases, 2 thr, / mutex", "{:.2f}"),
    ("geomean_1t_vs_libitm", "geometric mean over cases, 1 thr, / libitm", "{:.2f}"),
    ("geomean_2t_vs_libitm", "geometric mean over cases, 2 thr, / libitm", "{:.2f}"),
]


def goals_table(goal_rows):
    cols = [(key, label, fmt) for key, label, fmt in GOAL_COLUMNS
            if any(r.get(key) is not None for r in goal_rows)]
    if not cols:
        return []
    out = ["| measure | " + " | ".join(r["config"] for r in goal_rows) + " |",
           "|---|" + "---:|" * len(goal_rows)]
    for key, label, fmt in cols:
        cells = [fmt.format(r[key]) if r.get(key) is not None else "-" for r in goal_rows]
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    return out

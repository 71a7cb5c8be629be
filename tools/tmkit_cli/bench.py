"""`tmkit bench`: the benchmark suite (bench/README.md).

Every case is one program of bench/programs/ with fixed options, run in several configurations:
the -mutex build, the -tm build on each tmkit algorithm, on the system libitm (its default) and on
libitm forced to ml_wt. For each repeat, all configurations of a case run back to back (their order
rotated from repeat to repeat) so that the machine's noise hits them alike; the report gives the
median ops/s (and min/max) and its ratios to the mutex and to the libitm default. Single-thread
instruction counts per operation come from callgrind in the fixed-operations mode:
(I(n2) - I(n1)) / (n2 - n1) cancels start-up and set-up.

Output (bench/results/<date>-<suites>/ unless --out): results.csv (one row per case, thread count
and configuration), runs.csv (every run), summary.md, and PNG plots when matplotlib is available
from the project venv (scripts/venv.sh).
"""
import concurrent.futures
import csv
import datetime
import math
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from collections import namedtuple

from . import paths

Case = namedtuple("Case", "suite name prog args cg_ops")
Config = namedtuple("Config", "name build env")

CG_DEFAULT = (1000, 3000)

SUITES = {
    "micro": [
        Case("micro", "empty", "micro", ["--mode", "empty"], (2000, 10000)),
        Case("micro", "reads-16", "micro", ["--mode", "reads", "--n", "16"], (2000, 10000)),
        Case("micro", "reads-64", "micro", ["--mode", "reads", "--n", "64"], (2000, 10000)),
        Case("micro", "reads-64-shared", "micro",
             ["--mode", "reads", "--n", "64", "--array", "shared"], (2000, 10000)),
        Case("micro", "writes-16", "micro", ["--mode", "writes", "--n", "16"], (2000, 10000)),
        Case("micro", "writes-64", "micro", ["--mode", "writes", "--n", "64"], (2000, 10000)),
        Case("micro", "counter", "micro", ["--mode", "counter"], (2000, 10000)),
        Case("micro", "disjoint", "micro", ["--mode", "disjoint"], (2000, 10000)),
    ],
    "ds": [
        Case("ds", "list-256-u10", "list", ["--range", "256", "--update-pct", "10"], CG_DEFAULT),
        Case("ds", "list-256-u50", "list", ["--range", "256", "--update-pct", "50"], CG_DEFAULT),
        Case("ds", "list-2048-u10", "list", ["--range", "2048", "--update-pct", "10"], (500, 1500)),
        Case("ds", "rbtree-1024-u10", "rbtree", ["--range", "1024", "--update-pct", "10"], CG_DEFAULT),
        Case("ds", "rbtree-1024-u50", "rbtree", ["--range", "1024", "--update-pct", "50"], CG_DEFAULT),
        Case("ds", "rbtree-65536-u10", "rbtree", ["--range", "65536", "--update-pct", "10"],
             CG_DEFAULT),
        Case("ds", "hashset-4096-u10", "hashset",
             ["--buckets", "1024", "--range", "4096", "--update-pct", "10"], CG_DEFAULT),
        Case("ds", "hashset-4096-u50", "hashset",
             ["--buckets", "1024", "--range", "4096", "--update-pct", "50"], CG_DEFAULT),
        Case("ds", "hashset-262144-u10", "hashset",
             ["--buckets", "65536", "--range", "262144", "--update-pct", "10"], CG_DEFAULT),
    ],
    "bank": [
        Case("bank", "bank-1024", "bank", ["--accounts", "1024", "--audit-pct", "1"], CG_DEFAULT),
    ],
    "lru": [
        Case("lru", "lru-zipf0.1", "lru",
             ["--capacity", "1024", "--range", "16384", "--zipf", "0.1"], CG_DEFAULT),
        Case("lru", "lru-zipf1", "lru",
             ["--capacity", "1024", "--range", "16384", "--zipf", "1"], CG_DEFAULT),
        Case("lru", "lru-zipf2", "lru",
             ["--capacity", "1024", "--range", "16384", "--zipf", "2"], CG_DEFAULT),
    ],
}
SUITE_ORDER = ["micro", "ds", "bank", "lru"]

# Full run: ~21 cases x 2 thread counts x 6 configurations x REPEATS x SECONDS, plus callgrind.
REPEATS, SECONDS = 5, 0.3
QUICK_REPEATS, QUICK_SECONDS, QUICK_CG_DIVISOR = 1, 0.05, 10


def _base_env():
    return {k: v for k, v in os.environ.items()
            if not k.startswith("TMKIT_") and k not in ("LD_LIBRARY_PATH", "ITM_DEFAULT_METHOD")}


def configurations(root, with_stats=False):
    lib = paths.libdir(root)
    configs = [Config("mutex", "mutex", {})]
    algos = [name for name, _ in paths.algorithms(root)]
    for name in algos:
        configs.append(Config(f"tmkit-{name}", "tm", {"TMKIT_ALGO": name, "LD_LIBRARY_PATH": lib}))
    if with_stats:  # the default algorithm with the per-site profile on: its overhead figure
        configs.insert(2, Config(f"tmkit-{algos[0]}+stats", "tm",
                                 {"TMKIT_ALGO": algos[0], "LD_LIBRARY_PATH": lib,
                                  "TMKIT_STATS": os.devnull}))
    configs.append(Config("libitm", "tm", {}))
    configs.append(Config("libitm-ml_wt", "tm", {"ITM_DEFAULT_METHOD": "ml_wt"}))
    return configs


def parse_line(text):
    """The last key=value line a program printed, as a dict."""
    lines = [ln for ln in text.splitlines() if "=" in ln]
    if not lines:
        return {}
    return dict(kv.split("=", 1) for kv in lines[-1].split() if "=" in kv)


def _describe_rc(rc):
    if rc is None:
        return "timeout"
    if rc < 0:
        try:
            import signal
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit {rc}"


def run_once(root, case, config, extra_args, timeout):
    exe = os.path.join(paths.bindir(root), f"{case.prog}-{config.build}")
    cmd = [exe] + case.args + extra_args
    env = dict(_base_env(), **config.env)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, {}, "timeout"
    fields = parse_line(p.stdout)
    err = p.stderr.strip().splitlines()
    return p.returncode, fields, err[-1] if err else ""


def callgrind_instr(root, case, config, ops, timeout=600):
    """Total instructions callgrind counted for one run with --ops ops (None if it failed)."""
    exe = os.path.join(paths.bindir(root), f"{case.prog}-{config.build}")
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
           exe] + case.args + ["--threads", "1", "--ops", str(ops)]
    env = dict(_base_env(), **config.env)
    if "TMKIT_STATS" in env:
        # Under valgrind a transaction takes ~50x longer, so the adaptive time sampling would
        # time far more attempts than natively; a fixed stride of 256 is what short
        # transactions get natively.
        env["TMKIT_STATS_STRIDE"] = "256"
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    m = re.search(r"Collected\s*:\s*(\d+)", p.stderr)
    if p.returncode != 0 or not m or parse_line(p.stdout).get("ok") != "1":
        return None
    return int(m.group(1))


def machine_info():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    def first_line(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0]
        except (OSError, IndexError):
            return "unknown"
    return {
        "nproc": str(os.cpu_count()),
        "cpu": cpu,
        "kernel": platform.release(),
        "gcc": first_line(["gcc", "--version"]),
        "valgrind": first_line(["valgrind", "--version"]),
        "libitm": subprocess.run(["gcc", "-print-file-name=libitm.so.1"], capture_output=True,
                                 text=True).stdout.strip(),
    }


def git_revision(root):
    try:
        rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--", "runtime",
                                "bench", "include"], capture_output=True, text=True).stdout.strip()
        return rev + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def loadavg():
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "unknown"


def fmt_rate(x):
    if x is None:
        return "-"
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= div:
            return f"{x / div:.3g}{suffix}"
    return f"{x:.3g}"


def fmt_ratio(x):
    return "-" if x is None else f"{x:.2f}"


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


class Results:
    """Samples per (case name, threads, config name); aggregates on demand."""

    def __init__(self):
        self.samples = {}   # key -> [ops_per_s]
        self.ns = {}        # key -> [ns_per_op]
        self.failures = {}  # key -> [reason]
        self.instr = {}     # (case name, config name) -> instr per op

    def add(self, key, fields, rc, err):
        ok = rc == 0 and fields.get("ok") == "1" and "ops_per_s" in fields
        if ok:
            self.samples.setdefault(key, []).append(float(fields["ops_per_s"]))
            self.ns.setdefault(key, []).append(float(fields["ns_per_op"]))
        else:
            reason = _describe_rc(rc) if rc != 0 else "invariant failed (ok=0)"
            self.failures.setdefault(key, []).append(reason + (f": {err}" if err else ""))
        return ok

    def median(self, key):
        s = self.samples.get(key)
        return statistics.median(s) if s else None

    def median_ns(self, key):
        s = self.ns.get(key)
        return statistics.median(s) if s else None

    def ratio(self, key, base_config):
        case, threads, _ = key
        a, b = self.median(key), self.median((case, threads, base_config))
        return a / b if a and b else None


def run_suite(root, cases, configs, threads, repeats, seconds, cg_divisor, cg_configs, jobs, log):
    res = Results()
    raw = []
    extra = ["--seconds", str(seconds)]
    timeout = max(60.0, seconds * 30)
    total = repeats * len(cases) * len(threads) * len(configs)
    done, t0 = 0, time.monotonic()
    for rep in range(repeats):
        for case in cases:
            for thr in threads:
                k = rep % len(configs)
                for config in configs[k:] + configs[:k]:
                    rc, fields, err = run_once(root, case, config,
                                               ["--threads", str(thr)] + extra, timeout)
                    key = (case.name, thr, config.name)
                    if not res.add(key, fields, rc, err):
                        log(f"  FAILED {case.name} threads={thr} {config.name}: "
                            f"{res.failures[key][-1]}")
                    raw.append({"repeat": rep + 1, "suite": case.suite, "case": case.name,
                                "threads": thr, "config": config.name,
                                "ops_per_s": fields.get("ops_per_s", ""),
                                "ns_per_op": fields.get("ns_per_op", ""),
                                "ok": fields.get("ok", ""), "status": _describe_rc(rc),
                                "output": " ".join(f"{k}={v}" for k, v in fields.items())})
                    done += 1
        elapsed = time.monotonic() - t0
        log(f"  repeat {rep + 1}/{repeats} done, {elapsed:.0f} s elapsed, "
            f"~{elapsed / done * (total - done):.0f} s of timed runs left")

    if cg_divisor and shutil.which("valgrind"):
        log(f"  callgrind: {len(cases) * len(cg_configs) * 2} runs, {jobs} at a time")
        tasks = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
            for case in cases:
                n1, n2 = (max(1, n // cg_divisor) for n in case.cg_ops)
                for config in cg_configs:
                    tasks[(case.name, config.name)] = (
                        n1, n2, ex.submit(callgrind_instr, root, case, config, n1),
                        ex.submit(callgrind_instr, root, case, config, n2))
            for key, (n1, n2, f1, f2) in tasks.items():
                i1, i2 = f1.result(), f2.result()
                if i1 is None or i2 is None:
                    log(f"  callgrind failed: {key[0]} {key[1]}")
                    res.failures.setdefault((key[0], 1, key[1]), []).append("callgrind run failed")
                else:
                    res.instr[key] = (i2 - i1) / (n2 - n1)
        log(f"  callgrind done, {time.monotonic() - t0:.0f} s elapsed")
    elif cg_divisor:
        log("  valgrind not found: no instruction counts")
    return res, raw


def write_csv(path, rows, fields):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow(r)


def result_rows(res, cases, configs, threads):
    rows = []
    for case in cases:
        for thr in threads:
            for config in configs:
                key = (case.name, thr, config.name)
                s = res.samples.get(key, [])
                instr = res.instr.get((case.name, config.name)) if thr == 1 else None
                rows.append({
                    "suite": case.suite, "case": case.name, "program": case.prog,
                    "args": " ".join(case.args), "threads": thr, "config": config.name,
                    "runs": len(s), "failures": len(res.failures.get(key, [])),
                    "median_ops_per_s": f"{res.median(key):.0f}" if s else "",
                    "min_ops_per_s": f"{min(s):.0f}" if s else "",
                    "max_ops_per_s": f"{max(s):.0f}" if s else "",
                    "median_ns_per_op": f"{res.median_ns(key):.2f}" if s else "",
                    "ratio_vs_mutex": _fmt_opt(res.ratio(key, "mutex")),
                    "ratio_vs_libitm": _fmt_opt(res.ratio(key, "libitm")),
                    "instr_per_op": f"{instr:.1f}" if instr is not None else "",
                })
    return rows


def _fmt_opt(x):
    return f"{x:.4f}" if x is not None else ""


RESULT_FIELDS = ["suite", "case", "program", "args", "threads", "config", "runs", "failures",
                 "median_ops_per_s", "min_ops_per_s", "max_ops_per_s", "median_ns_per_op",
                 "ratio_vs_mutex", "ratio_vs_libitm", "instr_per_op"]
RAW_FIELDS = ["repeat", "suite", "case", "threads", "config", "ops_per_s", "ns_per_op", "ok",
              "status", "output"]


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


def headline_table(res, cases, configs, threads):
    """Per case: the default tmkit algorithm's throughput ratio to the mutex and to libitm."""
    default = next(c.name for c in configs if c.name.startswith("tmkit-"))
    head = "| case | " + " | ".join(f"{thr} thr vs mutex | {thr} thr vs libitm" for thr in threads)
    out = [head + " |", "|---|" + "---:|---:|" * len(threads)]
    for case in cases:
        cells = []
        for thr in threads:
            key = (case.name, thr, default)
            cells += [fmt_ratio(res.ratio(key, "mutex")), fmt_ratio(res.ratio(key, "libitm"))]
        out.append(f"| {case.name} | " + " | ".join(cells) + " |")
    cells = []
    for thr in threads:
        keys = [(c.name, thr, default) for c in cases]
        cells += [fmt_ratio(geomean([res.ratio(k, "mutex") for k in keys])),
                  fmt_ratio(geomean([res.ratio(k, "libitm") for k in keys]))]
    out.append("| **geometric mean** | " + " | ".join(cells) + " |")
    return default, out


def write_summary(path, res, cases, configs, threads, meta, plots, goal_rows):
    L = []
    L.append(f"# tmkit benchmarks: {meta['suites']}")
    L.append("")
    L.append(f"- date: {meta['date']}")
    L.append(f"- command: `{meta['command']}`")
    L.append(f"- machine: {meta['machine']['nproc']} CPUs, {meta['machine']['cpu']}, "
             f"Linux {meta['machine']['kernel']}; load average {meta['load_start']} at start, "
             f"{meta['load_end']} at end")
    L.append(f"- toolchain: {meta['machine']['gcc']}; system libitm {meta['machine']['libitm']}; "
             f"{meta['machine']['valgrind']}")
    L.append(f"- tmkit revision: {meta['revision']}")
    L.append(f"- method: {meta['repeats']} repeats x {meta['seconds']} s per run, configurations "
             f"interleaved (order rotated each repeat); medians; total time {meta['duration']:.0f} s")
    L.append("")
    default, head = headline_table(res, cases, configs, threads)
    L.append(f"## Headline: {default} throughput relative to the mutex and to libitm")
    L.append("")
    L.append("Ratios of median ops/s; above 1 means tmkit is faster. `libitm` is the system "
             "libitm with its default method (with one thread it runs transactions serially, "
             "uninstrumented).")
    L.append("")
    L += head
    L.append("")
    gt = goals_table(goal_rows)
    if gt:
        L.append("## Goal measures")
        L.append("")
        L.append("Times are ratios of ns per operation (below 1 = faster than the mutex); "
                 "per-access costs are the slope between 16 and 64 accesses per transaction; "
                 "throughputs are ratios of ops/s (above 1 = faster).")
        L.append("")
        L += gt
        L.append("")
    L.append("## Throughput")
    L.append("")
    L.append("Each cell: median ops/s (ratio to mutex, ratio to libitm). Min and max of the "
             "repeats are in results.csv.")
    L.append("")
    L.append("| case | thr | " + " | ".join(c.name for c in configs) + " |")
    L.append("|---|---:|" + "---:|" * len(configs))
    for case in cases:
        for thr in threads:
            cells = []
            for c in configs:
                key = (case.name, thr, c.name)
                m = res.median(key)
                if m is None:
                    cells.append("FAILED")
                    continue
                cell = (f"{fmt_rate(m)} ({fmt_ratio(res.ratio(key, 'mutex'))}, "
                        f"{fmt_ratio(res.ratio(key, 'libitm'))})")
                if res.failures.get(key):
                    cell += f" [{len(res.failures[key])} failed]"
                cells.append(cell)
            L.append(f"| {case.name} | {thr} | " + " | ".join(cells) + " |")
    L.append("")
    if res.instr:
        L.append("## Instructions per operation (1 thread, callgrind)")
        L.append("")
        L.append("Each cell: instructions per operation (ratio to mutex). Includes the driver's "
                 "loop and key generation, the same in every configuration.")
        L.append("")
        L.append("| case | " + " | ".join(c.name for c in configs) + " |")
        L.append("|---|" + "---:|" * len(configs))
        for case in cases:
            base = res.instr.get((case.name, "mutex"))
            cells = []
            for c in configs:
                v = res.instr.get((case.name, c.name))
                if v is None:
                    cells.append("-")
                else:
                    cells.append(f"{v:,.0f}" + (f" ({v / base:.2f})" if base and c.name != "mutex" else ""))
            L.append(f"| {case.name} | " + " | ".join(cells) + " |")
        L.append("")
    L.append("## Cases")
    L.append("")
    for case in cases:
        L.append(f"- `{case.name}`: `{case.prog}-{{tm,mutex}} {' '.join(case.args)}`")
    L.append("")
    if res.failures:
        L.append("## Failures")
        L.append("")
        for (case, thr, cfg), reasons in sorted(res.failures.items()):
            L.append(f"- {case}, {thr} thr, {cfg}: {len(reasons)} x {reasons[0]}")
        L.append("")
    if plots:
        L.append("## Plots")
        L.append("")
        for p in plots:
            L.append(f"![{p}]({p})")
        L.append("")
    else:
        L.append(f"Plots: skipped ({meta.get('plot_note', 'matplotlib unavailable')}).")
        L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))
    return default, head


def make_plots(root, outdir, log):
    """Runs bench_plot.py with the venv's python; returns the PNG names or ([], reason)."""
    venv_sh = os.path.join(root, "scripts", "venv.sh")
    p = subprocess.run(["sh", venv_sh], capture_output=True, text=True)
    if p.returncode != 0:
        return [], "could not set up matplotlib in .venv: " + (p.stderr.strip().splitlines() or ["?"])[-1]
    py = os.path.join(root, ".venv", "bin", "python")
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_plot.py")
    p = subprocess.run([py, script, os.path.join(outdir, "results.csv"), outdir],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return [], "plotting failed: " + (p.stderr.strip().splitlines() or ["?"])[-1]
    return p.stdout.split(), None


README_BEGIN = "<!-- bench:begin (written by `tmkit bench`) -->"
README_END = "<!-- bench:end -->"


def update_readme(root, rel_outdir, meta, default, head):
    path = os.path.join(root, "README.md")
    try:
        text = open(path).read()
    except OSError:
        return False
    block = [README_BEGIN,
             f"Latest full run ({meta['date']}, {meta['machine']['nproc']} CPUs, "
             f"{meta['machine']['cpu']}; `{meta['command']}`): throughput of `{default}` relative "
             f"to a pthread mutex and to the system libitm (above 1 = tmkit faster). Full tables, "
             f"instruction counts and plots: [{rel_outdir}/summary.md]({rel_outdir}/summary.md).",
             ""] + head + [README_END]
    if README_BEGIN in text and README_END in text:
        pre = text[:text.index(README_BEGIN)]
        post = text[text.index(README_END) + len(README_END):]
        text = pre + "\n".join(block) + post
    else:
        text = text.rstrip("\n") + "\n\n## Benchmarks\n\n" + "\n".join(block) + "\n"
    with open(path, "w") as f:
        f.write(text)
    return True


def run(root, args, argv):
    log = lambda msg: print(msg, flush=True)  # noqa: E731
    suites = args.suites or ["all"]
    bad = [s for s in suites if s not in SUITES and s != "all"]
    if bad:
        print(f"tmkit bench: unknown suite '{bad[0]}'; valid: {', '.join(SUITE_ORDER)}, all",
              file=sys.stderr)
        return 2
    chosen = SUITE_ORDER if "all" in suites else [s for s in SUITE_ORDER if s in suites]
    try:
        threads = sorted({int(t) for t in args.threads.split(",")})
        if not threads or threads[0] < 1:
            raise ValueError
    except ValueError:
        print(f"tmkit bench: bad --threads '{args.threads}' (want e.g. 1,2)", file=sys.stderr)
        return 2
    repeats = args.repeats or (QUICK_REPEATS if args.quick else REPEATS)
    seconds = args.seconds or (QUICK_SECONDS if args.quick else SECONDS)
    if repeats < 1 or seconds <= 0:
        print("tmkit bench: --repeats and --seconds must be positive", file=sys.stderr)
        return 2
    cg_divisor = 0 if args.no_callgrind else (QUICK_CG_DIVISOR if args.quick else 1)

    cases = [c for s in chosen for c in SUITES[s]]
    configs = configurations(root, args.with_stats)
    if args.configs:
        want = args.configs.split(",")
        unknown = [w for w in want if w not in [c.name for c in configs]]
        if unknown:
            print(f"tmkit bench: unknown configuration '{unknown[0]}'; valid: "
                  f"{', '.join(c.name for c in configs)}", file=sys.stderr)
            return 2
        # the mutex and the libitm default stay: every ratio is taken against them
        configs = [c for c in configs if c.name in want or c.name in ("mutex", "libitm")]
    missing = [f"{c.prog}-{b}" for c in cases for b in ("tm", "mutex")
               if not os.path.exists(os.path.join(paths.bindir(root), f"{c.prog}-{b}"))]
    if missing or not os.path.exists(os.path.join(paths.libdir(root), "libitm.so.1")):
        print(f"tmkit bench: build/bin/{(missing or ['libitm.so.1'])[0]} is missing; "
              "run `make build` first", file=sys.stderr)
        return 2
    # The -tm binaries must really load tmkit when LD_LIBRARY_PATH says so: a bogus algorithm
    # name only fails if our library is the one loaded.
    probe = Config("probe", "tm", {"TMKIT_ALGO": "bogus", "LD_LIBRARY_PATH": paths.libdir(root)})
    rc, _, _ = run_once(root, cases[0], probe, ["--ops", "1"], 60)
    if rc != 2:
        print("tmkit bench: the -tm programs do not load build/lib/libitm.so.1", file=sys.stderr)
        return 2

    label = "-".join(chosen) if len(chosen) < len(SUITE_ORDER) else "all"
    today = datetime.date.today().isoformat()
    # Quick runs are for checking, not for keeping: they go under build/ unless --out says else.
    if args.out:
        outdir = os.path.abspath(args.out)
    elif args.quick:
        outdir = os.path.join(paths.builddir(root), "bench-results", f"{today}-{label}-quick")
    else:
        outdir = os.path.join(root, "bench", "results", f"{today}-{label}")
    os.makedirs(outdir, exist_ok=True)
    command = "bin/tmkit bench" + "".join(" " + shlex.quote(a) for a in argv)
    meta = {"suites": label, "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
            "command": command, "machine": machine_info(), "revision": git_revision(root),
            "repeats": repeats, "seconds": seconds, "load_start": loadavg()}

    log(f"tmkit bench {label}: {len(cases)} cases x threads {','.join(map(str, threads))} x "
        f"{len(configs)} configurations ({', '.join(c.name for c in configs)}), "
        f"{repeats} repeats x {seconds} s")
    t0 = time.monotonic()
    # --quick counts instructions for the mutex, the default tmkit algorithm and libitm-ml_wt only.
    cg_configs = [c for i, c in enumerate(configs)
                  if not args.quick or i == 1 or c.name in ("mutex", "libitm-ml_wt")]
    res, raw = run_suite(root, cases, configs, threads, repeats, seconds, cg_divisor, cg_configs,
                         max(1, os.cpu_count() or 1), log)
    meta["duration"] = time.monotonic() - t0
    meta["load_end"] = loadavg()

    write_csv(os.path.join(outdir, "results.csv"), result_rows(res, cases, configs, threads),
              RESULT_FIELDS)
    write_csv(os.path.join(outdir, "runs.csv"), raw, RAW_FIELDS)
    plots, note = ([], "--no-plots") if args.no_plots else make_plots(root, outdir, log)
    if note:
        meta["plot_note"] = note
        log(f"  plots skipped: {note}")
    goal_rows = goals(res, configs, threads)
    default, head = write_summary(os.path.join(outdir, "summary.md"), res, cases, configs,
                                  threads, meta, plots, goal_rows)
    rel = os.path.relpath(outdir, root)
    log("")
    log(f"{default} throughput / mutex and / libitm (median of {repeats}):")
    for line in head:
        if not line.startswith("|---"):
            log("  " + line)
    gt = goals_table(goal_rows)
    if gt:
        log("")
        for line in gt:
            if not line.startswith("|---"):
                log("  " + line)
    log("")
    log(f"results: {rel}/ (summary.md, results.csv, runs.csv{', ' + ', '.join(plots) if plots else ''})")
    if label == "all" and not args.quick and not args.out:
        if update_readme(root, rel, meta, default, head):
            log("README.md: benchmark table updated")

    # Failures of the system libitm are its own (recorded in summary.md); tmkit or mutex failures
    # mean a broken runtime or program.
    ours = [k for k in res.failures if not k[2].startswith("libitm")]
    if ours:
        log(f"tmkit bench: {len(ours)} tmkit/mutex configuration(s) failed; see {rel}/summary.md")
        return 1
    return 0

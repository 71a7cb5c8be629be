"""The reports of `tmkit bench` (bench.py): results.csv and runs.csv, the goal measures of
bench/README.md, summary.md with its tables, the plots (plot.py in the project venv) and
the README's benchmark block. Everything here reads a finished Results; nothing runs a program
except the plotting script.
"""
import csv
import os
import subprocess

from .. import paths
from .floor import floor_lines
from .fmt import fmt_ratio, section_head
from .goals import geomean, goals_table
from .overhead import overhead_section
from .scaling import scaling_section
from .share import share_section

def fmt_rate(x):
    if x is None:
        return "-"
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= div:
            return f"{x / div:.3g}{suffix}"
    return f"{x:.3g}"


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
                    "min_share": _fmt_opt(res.min_share(key)),
                })
    return rows


def _fmt_opt(x):
    return f"{x:.4f}" if x is not None else ""


RESULT_FIELDS = ["suite", "case", "program", "args", "threads", "config", "runs", "failures",
                 "median_ops_per_s", "min_ops_per_s", "max_ops_per_s", "median_ns_per_op",
                 "ratio_vs_mutex", "ratio_vs_libitm", "instr_per_op", "min_share"]
RAW_FIELDS = ["repeat", "suite", "case", "threads", "config", "ops_per_s", "ns_per_op", "min_share", "ok",
              "status", "output"]


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
        L += floor_lines(meta.get("floor"))
    L += scaling_section(res, default, threads)
    L += overhead_section(res, cases, configs, threads)
    L += share_section(res, cases, configs, threads)
    L += section_head("Throughput",
                      "Each cell: median ops/s (ratio to mutex, ratio to libitm). Min and max "
                      "of the repeats are in results.csv.",
                      ["case", "thr"] + [c.name for c in configs])
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
        L += section_head("Instructions per operation (1 thread, callgrind)",
                          "Each cell: instructions per operation (ratio to mutex). Includes "
                          "the driver's loop and key generation, the same in every "
                          "configuration.", ["case"] + [c.name for c in configs])
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
    """Runs plot.py with the venv's python; returns the PNG names or ([], reason)."""
    py, why = paths.python_with(root, "matplotlib", "tmkit bench")
    if not py:
        return [], why
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plot.py")
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
             f"Latest full run (commit {meta['revision']}, {meta['machine']['nproc']} CPUs, "
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

"""Plots for `tmkit bench`: run by the project venv's python (scripts/venv.sh installs matplotlib).

usage: plot.py RESULTS_CSV OUTDIR
Writes throughput-<N>t.png (one per thread count: bars per case and configuration, throughput
relative to the mutex on a log scale, whiskers at the repeats' min and max) and
instructions.png (single-thread instructions per operation); prints the file names written.
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def ordered(values):
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


def bars(ax, cases, configs, value, low=None, high=None):
    width = 0.8 / len(configs)
    for j, cfg in enumerate(configs):
        xs, ys, err_lo, err_hi = [], [], [], []
        for i, case in enumerate(cases):
            v = value(case, cfg)
            if v is None:
                continue
            xs.append(i - 0.4 + width * (j + 0.5))
            ys.append(v)
            if low:
                lo, hi = low(case, cfg), high(case, cfg)
                err_lo.append(max(0.0, v - lo) if lo is not None else 0.0)
                err_hi.append(max(0.0, hi - v) if hi is not None else 0.0)
        kw = {"yerr": [err_lo, err_hi], "capsize": 1.5, "error_kw": {"linewidth": 0.6}} if low else {}
        ax.bar(xs, ys, width, label=cfg, **kw)
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(cases, rotation=45, ha="right", fontsize=8)
    ax.set_xlim(-0.6, len(cases) - 0.4)
    ax.grid(axis="y", linewidth=0.3)
    ax.legend(fontsize=7, ncol=min(len(configs), 6), loc="upper center",
              bbox_to_anchor=(0.5, 1.13), frameon=False)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    rows = load(argv[1])
    outdir = argv[2]
    cases = ordered(r["case"] for r in rows)
    configs = ordered(r["config"] for r in rows)
    by = {(r["case"], int(r["threads"]), r["config"]): r for r in rows}
    written = []

    def num(row, field):
        return float(row[field]) if row and row.get(field) else None

    for thr in sorted({int(r["threads"]) for r in rows}):
        def rel(field):
            def f(case, cfg):
                base = num(by.get((case, thr, "mutex")), "median_ops_per_s")
                v = num(by.get((case, thr, cfg)), field)
                return v / base if v is not None and base else None
            return f
        fig, ax = plt.subplots(figsize=(max(6.0, 0.75 * len(cases) + 2), 4.5))
        bars(ax, cases, configs, rel("median_ops_per_s"), rel("min_ops_per_s"), rel("max_ops_per_s"))
        ax.set_yscale("log")
        ax.axhline(1.0, color="black", linewidth=0.6)
        ax.set_ylabel("throughput / mutex (log scale)")
        ax.set_title(f"{thr} thread{'s' if thr > 1 else ''}: median ops/s relative to the mutex",
                     fontsize=10, pad=28)
        fig.tight_layout()
        name = f"throughput-{thr}t.png"
        fig.savefig(os.path.join(outdir, name), dpi=110)
        plt.close(fig)
        written.append(name)

    if any(r.get("instr_per_op") for r in rows):
        fig, ax = plt.subplots(figsize=(max(6.0, 0.75 * len(cases) + 2), 4.5))
        bars(ax, cases, configs, lambda case, cfg: num(by.get((case, 1, cfg)), "instr_per_op"))
        ax.set_yscale("log")
        ax.set_ylabel("instructions per operation (log scale)")
        ax.set_title("1 thread: instructions per operation (callgrind)", fontsize=10, pad=28)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "instructions.png"), dpi=110)
        plt.close(fig)
        written.append("instructions.png")
    print(" ".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""Plots of `tmkit bench channels` (channels.py), run by the project venv's python.

usage: channels_plot.py RUNS_CSV OUTDIR
Writes long_cpu.png (the paper's Figure 11: CPU use of one long process against workers, one
line per configuration), exchange.png (Table 1: wall time against workers, one panel per
channel count, log scale: libitm's seconds would flatten the rest) and search.png (Table 2:
wall time against workers, one panel per file count); prints the file names written. Runs on
a recorded runs.csv as well, to redraw a run's plots."""
import csv
import math
import os
import statistics
import sys

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {"lock": ("black", "-"), "tm-busywait/tmkit": ("tab:red", "-"),
         "tm-busywait/libitm": ("tab:red", "--"), "tm/tmkit": ("tab:blue", "-"),
         "tm/libitm": ("tab:blue", "--")}


def series(rows, test, x, value):
    out = {}
    for label in STYLE:
        pts = {}
        for r in rows:
            if r["test"] == test and r["x"] == x and r["config"] == label and r["status"] == "ok":
                pts.setdefault(int(r["workers"]), []).append(value(r))
        if pts:
            out[label] = sorted((w, statistics.median(v)) for w, v in pts.items())
    return out


def draw(ax, data):
    for label, pts in data.items():
        c, ls = STYLE[label]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color=c, linestyle=ls, marker="o", label=label)
    ax.set_xlabel("workers")
    ax.set_xticks(sorted({p[0] for pts in data.values() for p in pts}))


def plot(path, data, ylabel, title):
    fig, ax = plt.subplots(figsize=(6, 4))
    draw(ax, data)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def panels(path, rows, test, xs, title, log):
    """One panel per value of x (channels, files): wall time against workers."""
    data = {x: series(rows, test, x, lambda r: float(r["seconds"])) for x in xs}
    data = {x: d for x, d in data.items() if d}
    if not data:
        return False
    fig, axes = plt.subplots(1, len(data), figsize=(4 * len(data), 4), squeeze=False,
                             sharey=log)
    for ax, (x, d) in zip(axes[0], data.items()):
        draw(ax, d)
        ax.set_title(title(x))
        if log:
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
            ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(
                lambda v, _: f"{v:g}" if round(v / 10 ** math.floor(math.log10(v))) in (2, 5) else ""))
        else:
            ax.set_ylim(bottom=0)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("wall time (s)" + (", log scale" if log else ""))
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main():
    rows = list(csv.DictReader(open(sys.argv[1], newline="")))
    out = sys.argv[2]
    written = []
    cpu = series(rows, "long", "0", lambda r: float(r["cpu_seconds"]) / float(r["seconds"]))
    if cpu:
        plot(os.path.join(out, "long_cpu.png"), cpu, "CPU use (cores)", "One long Lua process")
        written.append("long_cpu.png")
    xs = lambda test: sorted({r["x"] for r in rows if r["test"] == test}, key=int)  # noqa: E731
    if panels(os.path.join(out, "exchange.png"), rows, "exchange", xs("exchange"),
              lambda x: f"100 processes, {x} channel{'s' if x != '1' else ''}", log=True):
        written.append("exchange.png")
    if panels(os.path.join(out, "search.png"), rows, "search", xs("search"),
              lambda x: f"string search, {x} file{'s' if x != '1' else ''}", log=False):
        written.append("search.png")
    print(" ".join(written))


if __name__ == "__main__":
    main()

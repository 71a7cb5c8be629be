"""Plots of `tmkit bench channels` (channels.py), run by the project venv's python.

usage: channels_plot.py RUNS_CSV OUTDIR
Writes long_cpu.png (the paper's Figure 11: CPU use of one long process against workers, one
line per configuration) and exchange.png (Table 1: wall time against workers over one
channel); prints the file names written."""
import csv
import os
import statistics
import sys

import matplotlib

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


def plot(path, data, ylabel, title):
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, pts in data.items():
        c, ls = STYLE[label]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color=c, linestyle=ls, marker="o", label=label)
    ax.set_xlabel("workers")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    rows = list(csv.DictReader(open(sys.argv[1], newline="")))
    out = sys.argv[2]
    written = []
    cpu = series(rows, "long", "0", lambda r: float(r["cpu_seconds"]) / float(r["seconds"]))
    if cpu:
        plot(os.path.join(out, "long_cpu.png"), cpu, "CPU use (cores)", "One long Lua process")
        written.append("long_cpu.png")
    ex = series(rows, "exchange", "1", lambda r: float(r["seconds"]))
    if ex:
        plot(os.path.join(out, "exchange.png"), ex, "wall time (s)", "100 processes, one channel")
        written.append("exchange.png")
    print(" ".join(written))


if __name__ == "__main__":
    main()

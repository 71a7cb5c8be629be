"""Plots of `tmkit bench kvcache` (kvcache.py), run by the project venv's python (scripts/venv.sh
installs matplotlib).

usage: kvcache_plot.py MEDIANS_CSV OUTDIR
Writes figure1.png (the paper's Figure 1: median running time per build, one bar per server
thread count, whiskers at the repeats' min and max; memcached as a dashed reference line per
thread count) and throughput.png (median operations/s against server threads, one line per
build: solid on tmkit, dashed on libitm), one panel per load (set, get) in each; prints the file
names written.
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"memcached": "black", "baseline": "tab:gray", "cache-naive": "tab:blue",
          "cache": "tab:orange", "slabs": "tab:green", "stats": "tab:olive",
          "cache-stats": "tab:purple", "cache-stats-slabs": "tab:brown", "tmkit": "tab:red"}


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def ordered(values):
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


def val(rows, cfg, n, k):
    for r in rows:
        if r["config"] == cfg and r["threads"] == n and r[k]:
            return float(r[k])
    return None


def figure1(all_rows, path):
    loads = ordered(r["load"] for r in all_rows)
    cfgs = [c for c in ordered(r["config"] for r in all_rows) if c != "memcached"]
    fig, axes = plt.subplots(len(loads), 1, figsize=(max(7.0, 0.55 * len(cfgs) + 2),
                                                     4.0 * len(loads)), squeeze=False)
    for ax, load in zip(axes[:, 0], loads):
        figure1_panel(ax, [r for r in all_rows if r["load"] == load], cfgs, load)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def figure1_panel(ax, rows, cfgs, load):
    threads = ordered(r["threads"] for r in rows)
    width = 0.8 / len(threads)
    shades = plt.get_cmap("Blues")
    for j, n in enumerate(threads):
        xs, ys, lo, hi = [], [], [], []
        for i, c in enumerate(cfgs):
            v = val(rows, c, n, "median_seconds")
            if v is None:
                continue
            xs.append(i - 0.4 + width * (j + 0.5))
            ys.append(v)
            lo.append(max(0.0, v - val(rows, c, n, "min_seconds")))
            hi.append(max(0.0, val(rows, c, n, "max_seconds") - v))
        color = shades(0.35 + 0.6 * j / max(1, len(threads) - 1))
        ax.bar(xs, ys, width, label=f"{n} thread{'s' if n != '1' else ''}", color=color,
               yerr=[lo, hi], capsize=1.5, error_kw={"linewidth": 0.6})
        ref = val(rows, "memcached", n, "median_seconds")
        if ref is not None:
            ax.axhline(ref, color=color, linestyle="--", linewidth=1.0,
                       label=f"memcached 1.6, {n} thr.")
    ax.set_xticks(range(len(cfgs)))
    ax.set_xticklabels(cfgs, rotation=40, ha="right", fontsize=8)
    ax.set_xlim(-0.6, len(cfgs) - 0.4)
    ax.set_ylim(bottom=0)
    ax.set_ylabel("running time, s (median; lower is better)")
    ax.grid(axis="y", linewidth=0.3)
    ax.legend(fontsize=7, ncol=2)
    ax.set_title(f"kvcache under memcslap --binary --test={load}: running time per build "
                 "(cf. the paper's Figure 1)", fontsize=10)


def throughput(all_rows, path):
    loads = ordered(r["load"] for r in all_rows)
    fig, axes = plt.subplots(1, len(loads), figsize=(7.5 * len(loads), 4.5), squeeze=False)
    for ax, load in zip(axes[0], loads):
        throughput_panel(ax, [r for r in all_rows if r["load"] == load], load)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def throughput_panel(ax, rows, load):
    for c in ordered(r["config"] for r in rows):
        pts = sorted((int(r["threads"]), float(r["median_ops_per_s"]), float(r["min_ops_per_s"]),
                      float(r["max_ops_per_s"])) for r in rows
                     if r["config"] == c and r["median_ops_per_s"])
        if not pts:
            continue
        build, _, runtime = c.partition("/")
        ax.errorbar([p[0] for p in pts], [p[1] for p in pts],
                    yerr=[[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]], label=c,
                    color=COLORS.get(build), linestyle="--" if runtime == "libitm" else "-",
                    marker="v" if runtime == "libitm" else "o", capsize=2, linewidth=1.4
                    if build in ("memcached", "baseline") else 1.0, markersize=3.5)
    ax.set_xticks(sorted({int(r["threads"]) for r in rows}))
    ax.set_xlabel("server threads (-t)")
    ax.set_ylabel("operations/s (median)")
    ax.set_ylim(bottom=0)
    ax.grid(linewidth=0.3)
    ax.legend(fontsize=6.5, ncol=2, loc="lower right")
    ax.set_title(f"kvcache under memcslap --binary --test={load}: throughput (solid: tmkit, "
                 "dashed: libitm)", fontsize=10)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    rows = load(argv[1])
    figure1(rows, os.path.join(argv[2], "figure1.png"))
    throughput(rows, os.path.join(argv[2], "throughput.png"))
    print("figure1.png throughput.png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

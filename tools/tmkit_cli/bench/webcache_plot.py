"""Results of `tmkit bench webcache` (webcache.py): medians, summary.md and the plots.

The table functions are imported by the runner (standard library only). Run as a script by the
project venv's python (scripts/venv.sh installs matplotlib), it draws the paper's figures from
results.csv:

usage: webcache_plot.py RESULTS_CSV OUTDIR
Writes throughput.png and latency.png: median requests/s and mean latency against worker
threads, one panel per Zipf exponent s, one line per server build, whiskers at the repeats' min
and max (log scale in a panel whose values span more than 20x); prints the file names written.
"""
import os
import statistics
import sys

def aggregate(rows, failures, a):
    out = []
    for s in a.s:
        for t in a.threads:
            for b in a.builds:
                rs = [r for r in rows if r["s"] == s and r["threads"] == t and r["build"] == b]
                med = lambda k: statistics.median([float(r[k]) for r in rs if r.get(k) != ""]) \
                    if any(r.get(k) not in ("", None) for r in rs) else None  # noqa: E731
                f = lambda x, d=1: "" if x is None else f"{x:.{d}f}"  # noqa: E731
                rps = [r["rps"] for r in rs]
                lat = [r["mean_ms"] for r in rs]
                out.append({"s": s, "threads": t, "build": b, "runs": len(rs),
                            "failures": len(failures.get((s, t, b), [])),
                            "median_rps": f(med("rps")), "min_rps": f(min(rps) if rps else None),
                            "max_rps": f(max(rps) if rps else None),
                            "median_mean_ms": f(med("mean_ms"), 3),
                            "min_mean_ms": f(min(lat) if lat else None, 3),
                            "max_mean_ms": f(max(lat) if lat else None, 3),
                            "median_p99_ms": f(med("p99_ms"), 3),
                            "median_hit_rate": f(med("hit_rate"), 3),
                            "median_abort_rate": f(med("abort_rate"), 4)})
    return out


def _num(row, k):
    return float(row[k]) if row and row.get(k) not in ("", None) else None


def tables(results, a):
    """Markdown: per s, threads x builds cells 'rps (mean ms)'; then hit and abort rates."""
    by = {(r["s"], r["threads"], r["build"]): r for r in results}
    L = []
    for s in a.s:
        L += [f"### s = {s:g}", "",
              "| threads | " + " | ".join(a.builds) + " | hit rate | tm abort rate |",
              "|---:|" + "---:|" * (len(a.builds) + 2)]
        for t in a.threads:
            cells = []
            for b in a.builds:
                r = by[(s, t, b)]
                rps, ms = _num(r, "median_rps"), _num(r, "median_mean_ms")
                cells.append("FAILED" if rps is None else f"{rps:,.0f} ({ms:.2f} ms)")
            hit = [f"{b}: {_num(by[(s, t, b)], 'median_hit_rate'):.2f}" for b in ("lock", "tm-tmkit")
                   if (s, t, b) in by and _num(by[(s, t, b)], "median_hit_rate") is not None]
            ab = _num(by.get((s, t, "tm-tmkit")), "median_abort_rate")
            cells += ["; ".join(hit) or "-", "-" if ab is None else f"{100 * ab:.2f}%"]
            L.append(f"| {t} | " + " | ".join(cells) + " |")
        L.append("")
    return L


def ratios(results, a):
    """The comparisons the paper makes, at each s: cache gain and TM cost, best thread count."""
    by = {(r["s"], r["threads"], r["build"]): _num(r, "median_rps") for r in results}
    L = ["| s | lock / nocache | tm-tmkit / lock | tm-libitm / lock | peak threads "
         "(" + ", ".join(a.builds) + ") |", "|---:|---:|---:|---:|---|"]
    for s in a.s:
        def best(b):
            xs = [(by.get((s, t, b)) or 0, t) for t in a.threads]
            return max(xs)
        def ratio(x, y):
            bx, by_ = best(x)[0], best(y)[0]
            return f"{bx / by_:.2f}" if bx and by_ else "-"
        peaks = ", ".join(str(best(b)[1]) if best(b)[0] else "-" for b in a.builds)
        L.append(f"| {s:g} | {ratio('lock', 'nocache')} | {ratio('tm-tmkit', 'lock')} | "
                 f"{ratio('tm-libitm', 'lock')} | {peaks} |")
    return L


def write_summary(path, meta, results, cross, failures, plots, a):
    m = meta["machine"]
    L = ["# Web-cache experiment (docs/webcache.md)", "",
         f"- date: {meta['date']}", f"- command: `{meta['command']}`",
         f"- machine: {m['nproc']} CPUs, {m['cpu']}, Linux {m['kernel']}; load average "
         f"{meta['load_start']} at start, {meta['load_end']} at end; client and server share it",
         f"- toolchain: {m['gcc']}; system libitm {m['libitm']}; tmkit {meta['revision']}",
         f"- server: `--policy {a.policy} --max-entries {a.max_entries} --max-bytes "
         f"{a.max_bytes}`; catalog {meta['catalog']} pages (man 2, 3, 7)",
         f"- method: per point a fresh server, {a.warmup:g} s warm-up, {a.duration:g} s measured "
         f"by webcache-load with 2 x threads + 2 connections (closed loop, keep-alive); "
         f"{a.repeats} repeat(s), builds' order rotated each repeat; medians; "
         f"total {meta['duration']:.0f} s", "",
         "## Throughput and latency", "",
         "Each cell: median requests/s (median mean latency). Hit rate is over the measured "
         "window (/_stats); the abort rate is all aborts / attempts of the tm build on tmkit "
         "(TMKIT_STATS, warm-up included).", ""]
    L += tables(results, a)
    L += ["## Ratios at each build's best thread count", ""] + ratios(results, a) + [""]
    if cross:
        L += ["## Cross-check: wrk on the same server, right after webcache-load", "",
              "| s | build | threads | conns | webcache-load req/s | wrk req/s | wrk / load | "
              "load mean ms | wrk mean ms |", "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
        for c in cross:
            L.append(f"| {c['s']:g} | {c['build']} | {c['threads']} | {c['connections']} | "
                     f"{c['load_rps']:,.0f} | {c['wrk_rps']:,.0f} | {c['ratio_wrk_to_load']} | "
                     f"{c['load_mean_ms']:.2f} | {c['wrk_mean_ms']:.2f} |")
        L.append("")
    if failures:
        L += ["## Failures", ""]
        for k, reasons in sorted(failures.items(), key=str):
            L.append(f"- {k}: {len(reasons)} x {reasons[0]}")
        L.append("")
    L += ["## Plots", ""] + ([f"![{p}]({p})" for p in plots] if plots
                             else [f"skipped ({meta.get('plot_note', '')})"]) + [""]
    with open(path, "w") as f:
        f.write("\n".join(L))
    return L


STYLE = {"nocache": ("tab:gray", "s"), "lock": ("tab:blue", "o"), "tm-tmkit": ("tab:red", "^"),
         "tm-libitm": ("tab:orange", "v")}


def figure(rows, field, lo, hi, ylabel, title, path):
    from plot import ordered  # script mode: plot.py is our sibling on sys.path
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ss = ordered(r["s"] for r in rows)
    builds = ordered(r["build"] for r in rows)
    fig, axes = plt.subplots(1, len(ss), figsize=(4.2 * len(ss), 3.8), squeeze=False)
    for ax, s in zip(axes[0], ss):
        for b in builds:
            pts = [(int(r["threads"]), float(r[field]), float(r[lo]), float(r[hi]))
                   for r in rows if r["s"] == s and r["build"] == b and r[field]]
            if not pts:
                continue
            pts.sort()
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            err = [[max(0.0, p[1] - p[2]) for p in pts], [max(0.0, p[3] - p[1]) for p in pts]]
            color, marker = STYLE.get(b, (None, "x"))
            ax.errorbar(xs, ys, yerr=err, label=b, color=color, marker=marker, capsize=2,
                        linewidth=1.2, markersize=4)
        ax.set_title(f"s = {float(s):g}", fontsize=10)
        ax.set_xlabel("worker threads")
        ax.set_xticks(sorted({int(r["threads"]) for r in rows}))
        ys = [float(r[field]) for r in rows if r["s"] == s and r[field] and float(r[field]) > 0]
        if ys and max(ys) > 20 * min(ys):
            ax.set_yscale("log")   # e.g. no cache vs. cache hits at s = 2: both stay visible
        else:
            ax.set_ylim(bottom=0)
        ax.grid(linewidth=0.3)
    axes[0][0].set_ylabel(ylabel)
    axes[0][0].legend(fontsize=8)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    from plot import load
    rows = load(argv[1])
    out = argv[2]
    figure(rows, "median_rps", "min_rps", "max_rps", "requests/s (median)",
           "Web cache: throughput against worker threads", os.path.join(out, "throughput.png"))
    figure(rows, "median_mean_ms", "min_mean_ms", "max_mean_ms", "mean latency, ms (median)",
           "Web cache: mean latency against worker threads", os.path.join(out, "latency.png"))
    print("throughput.png latency.png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

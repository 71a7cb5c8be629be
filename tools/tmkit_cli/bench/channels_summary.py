"""The summary and plots of `tmkit bench channels` (channels.py): medians per test, point and
configuration, beside the paper's numbers (docs/channels.md)."""
import os
import statistics

from . import standalone

LABELS = ["lock", "tm-busywait/tmkit", "tm-busywait/libitm", "tm/tmkit", "tm/libitm"]


def med(runs, test, w, x, label, key):
    v = [r[key] for r in runs if (r["test"], r["workers"], r["x"], r["config"]) == (test, w, x, label)
         and r["status"] == "ok"]
    return statistics.median(v) if v else None


def cell(v, fmt):
    return "-" if v is None else fmt.format(v)


def points(runs, test):
    return sorted({(r["x"], r["workers"]) for r in runs if r["test"] == test})


def ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b else "-"


def write(path, runs, futex, meta, date, cmd, repeats, sizes, plots, note):
    L = standalone.header("channels (the luaproc experiment)", meta, date, cmd) + [
        f"- method: each run a fresh `lua5.4` loading build/lib/channels_<build>.so "
        f"(bench/programs/channels/); {repeats} repeat(s), configurations back to back at every "
        "point in an order rotated each repeat; medians. Wall = the run's elapsed time; CPU = "
        "user + system seconds over wall (2.00 = both cores busy the whole run). "
        "`/libitm`: the same module on the system libitm.", ""]
    tests = {r["test"] for r in runs}
    if "long" in tests:
        L += ["## 1. One long process (the paper's Figure 11)", "",
              f"One Lua process runs a loop of {sizes['iterations']:,} iterations; the other workers "
              "have nothing to do.", "",
              "| workers | " + " | ".join(f"{lb} wall / CPU" for lb in LABELS) + " | busywait/tm CPU (tmkit) |",
              "|---:|" + "---:|" * (len(LABELS) + 1)]
        for x, w in points(runs, "long"):
            cells = [f"{cell(med(runs, 'long', w, x, lb, 'seconds'), '{:.2f}')} / "
                     f"{cell(cpu_use(runs, 'long', w, x, lb), '{:.2f}')}" for lb in LABELS]
            L.append(f"| {w} | " + " | ".join(cells) + f" | {ratio(cpu_use(runs, 'long', w, x, 'tm-busywait/tmkit'), cpu_use(runs, 'long', w, x, 'tm/tmkit'))} |")
        if futex:
            L += ["", "futex system calls of one run each (strace -f -c; a separate, slower run):", "",
                  "| workers | " + " | ".join(LABELS) + " |", "|---:|" + "---:|" * len(LABELS)]
            for w in sorted({f["workers"] for f in futex}):
                m = {f["config"]: f["futex_calls"] for f in futex if f["workers"] == w}
                L.append(f"| {w} | " + " | ".join(str(m.get(lb, "-")) for lb in LABELS) + " |")
        L.append("")
    if "exchange" in tests:
        L += ["## 2. 100 processes exchanging messages (the paper's Table 1)", "",
              f"50 senders and 50 receivers, {sizes['messages']:,} messages each, over 1, 2 or 4 "
              "channels. Wall seconds (CPU use):", "",
              "| channels | workers | " + " | ".join(LABELS) + " | busywait / tm (tmkit) | busywait / tm (libitm) |",
              "|---:|---:|" + "---:|" * (len(LABELS) + 2)]
        for x, w in points(runs, "exchange"):
            cells = [f"{cell(med(runs, 'exchange', w, x, lb, 'seconds'), '{:.2f}')} "
                     f"({cell(cpu_use(runs, 'exchange', w, x, lb), '{:.2f}')})" for lb in LABELS]
            m = {lb: med(runs, "exchange", w, x, lb, "seconds") for lb in LABELS}
            L.append(f"| {x} | {w} | " + " | ".join(cells) +
                     f" | {ratio(m['tm-busywait/tmkit'], m['tm/tmkit'])} | {ratio(m['tm-busywait/libitm'], m['tm/libitm'])} |")
        L += ["", "`busywait / tm`: wall-time ratio (1.37 = 37% longer, the paper's measure).", ""]
    if "search" in tests:
        L += ["## 3. Parallel string search (the paper's Table 2)", "",
              f"{sizes['searchers']} searcher processes count {len(sizes['patterns'])} patterns "
              f"({', '.join(repr(p) for p in sizes['patterns'])}) in 1, 2 or 4 generated log files of "
              f"{sizes['file_mb']} MB; counts checked against Python's. Wall seconds (CPU use):", "",
              "| files | workers | " + " | ".join(LABELS) + " | busywait / tm (tmkit) |",
              "|---:|---:|" + "---:|" * (len(LABELS) + 1)]
        for x, w in points(runs, "search"):
            cells = [f"{cell(med(runs, 'search', w, x, lb, 'seconds'), '{:.2f}')} "
                     f"({cell(cpu_use(runs, 'search', w, x, lb), '{:.2f}')})" for lb in LABELS]
            m = {lb: med(runs, "search", w, x, lb, "seconds") for lb in LABELS}
            L.append(f"| {x} | {w} | " + " | ".join(cells) + f" | {ratio(m['tm-busywait/tmkit'], m['tm/tmkit'])} |")
        L.append("")
    if plots:
        L += ["## Plots", ""] + [f"![{p}]({p})" for p in plots] + [""]
    elif note:
        L += [f"Plots: {note}", ""]
    bad = [r for r in runs if r["status"] != "ok"]
    if bad:
        L += ["## Failed runs", ""] + [f"- {r['test']} w={r['workers']} x={r['x']} {r['config']} "
                                       f"repeat {r['repeat']}: {r['status']}" for r in bad] + [""]
    with open(path, "w") as fh:
        fh.write("\n".join(L))


def cpu_use(runs, test, w, x, label):
    v = [r["cpu_seconds"] / r["seconds"] for r in runs
         if (r["test"], r["workers"], r["x"], r["config"]) == (test, w, x, label)
         and r["status"] == "ok" and r["seconds"] > 0]
    return statistics.median(v) if v else None


def plots(root, out):
    """(files written, note): channels_plot.py under the project venv (matplotlib)."""
    files, note = standalone.venv_plot(root, "channels_plot.py", [os.path.join(out, "runs.csv"), out])
    return files, note or ""

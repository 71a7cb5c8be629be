"""summary.md of `tmkit bench kvcache` (kvcache.py): the method, running time and throughput per
configuration and thread count (medians), ratios, the profiles' totals, failures, plots."""
import os

from . import standalone


def _num(row, k):
    return float(row[k]) if row and row.get(k) not in ("", None) else None


def write_summary(path, meta, date, cmd, a, repeats, threads, cfgs, meds, runs, profs, libitms,
                  plots, note):
    labels = [c[0] for c in cfgs]
    ops = a.concurrency * a.number
    L = standalone.header("kvcache (the memcached experiment, docs/kvcache.md)", meta, date, cmd)
    L += [f"- toolchain: {meta['machine'].get('gcc', '?')}; libitm of the `libitm` runs: "
          f"{libitms.get('libitm', '?')}; tmkit's: {libitms.get('tmkit', '?')} (default algorithm)",
          f"- method: per run a fresh server (`-t THREADS`, defaults otherwise: `-m 64`; memcached "
          f"with `-U 0`) on a free 127.0.0.1 port, then `memcslap --binary --concurrency="
          f"{a.concurrency} --execute-number={a.number} --test=LOAD` ({ops:,} measured operations) "
          f"on the same machine; running time = memcslap's own time for the measured phase, "
          f"throughput = operations / running time; {repeats} repeat(s), configurations "
          f"interleaved (order rotated each repeat); medians; total {meta['duration']:.0f} s",
          "- loads: " + "; ".join(f"`{x}`: {LOAD_TEXT.get(x, x)}" for x in a.loads), ""]
    for load in a.loads:
        by = {(m["config"], m["threads"]): m for m in meds if m["load"] == load}
        L += load_tables(load, by, labels, threads)
    if profs:
        L += ["## Profiles (TMKIT_STATS, one run each on tmkit, separate from the timed runs)", "",
              "Totals over all transaction sites; per-site tables in `profiles/report-*.txt`, "
              "comparisons in `compare-*.txt`. Running time here is with statistics on.", "",
              "`serial starts`: transactions that began serial (relaxed ones that call unsafe "
              "code start serial-irrevocable; the adaptive default may also pick its serial mode); "
              "`irrev.`: switches to serial-irrevocable mid-way; `serial wait`: ms spent waiting "
              "to go serial.", "",
              "| build | algorithm | load | t | running s | starts | aborts | abort % | serial starts | "
              "irrev. | serial wait ms | ms in tx | ms lost | lost % | top aborts |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        for p in profs:
            if p["status"] != "ok":
                L.append(f"| {p['build']} | {p['algo']} | {p['load']} | {p['threads']} | "
                         f"FAILED: {p['status']} |"
                         + " |" * 10)
                continue
            L.append(f"| {p['build']} | {p['algo']} | {p['load']} | {p['threads']} | {p['seconds']} | "
                     f"{p['starts']:,} | {p['aborts']:,} | {100 * float(p['abort_rate']):.2f} | "
                     f"{p['serial_starts']:,} | {p['irrevocable_switches']:,} | "
                     f"{p['serial_wait_ms']} | {p['ms_in']} | {p['ms_lost']} | "
                     f"{100 * float(p['lost']):.1f} | {p['top_aborts'] or '-'} |")
        cmps = sorted(f for f in os.listdir(os.path.dirname(path)) if f.startswith("compare-"))
        L += ["", "Comparisons: " + ", ".join(f"[{c}]({c})" for c in cmps), ""]
    bad = [r for r in runs if r["status"] != "ok"]
    if bad:
        L += ["## Failed runs", ""] + [f"- t={r['threads']} {r['config']} repeat {r['repeat']}: "
                                       f"{r['status']}" for r in bad] + [""]
    L += ["## Plots", ""] + ([f"![{p}]({p})" for p in plots] if plots else [f"skipped ({note})"])
    L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))


LOAD_TEXT = {"set": "memcslap's default test, every measured operation a store (the paper's load)",
             "get": "memcslap stores its keys first (not timed), then every measured operation is "
                    "a get that hits: the read path (reference counts, LRU bumps, statistics)",
             "mget": "as get, with multi-key gets"}


def load_tables(load, by, labels, threads):
    L = [f"## Load `{load}`: running time (s, median; the paper's Figure 1: lower is better)", "",
         "| build | " + " | ".join(f"t={n}" for n in threads) + " | vs baseline |",
         "|---|" + "---:|" * (len(threads) + 1)]
    for lb in labels:
        cells = [by[(lb, n)]["median_seconds"] or "FAILED" for n in threads]
        rel = []
        for n in threads:
            x, b = _num(by[(lb, n)], "median_seconds"), _num(by.get(("baseline", n)), "median_seconds")
            rel.append(f"{x / b:.2f}" if x and b else "-")
        L.append(f"| {lb} | " + " | ".join(cells) + " | " + " / ".join(rel) + " |")
    L += ["", "`vs baseline`: running time over the baseline's (all mutexes) at each thread count, "
          "in the column order; above 1 = slower.", "",
          f"## Load `{load}`: throughput (operations/s, median)", "",
          "| build | " + " | ".join(f"t={n}" for n in threads) + " |",
          "|---|" + "---:|" * len(threads)]
    for lb in labels:
        cells = [f"{_num(by[(lb, n)], 'median_ops_per_s'):,.0f}"
                 if _num(by[(lb, n)], "median_ops_per_s") else "FAILED" for n in threads]
        L.append(f"| {lb} | " + " | ".join(cells) + " |")
    return L + [""] + runtimes(by, labels, threads, load)


def runtimes(by, labels, threads, load):
    """tmkit against libitm per TM build: libitm's running time over tmkit's."""
    tm = [lb[:-6] for lb in labels if lb.endswith("/tmkit")]
    if not tm:
        return []
    L = [f"## Load `{load}`: tmkit against GCC's libitm (libitm's running time / tmkit's; above 1 "
         "= tmkit faster)",
         "", "| build | " + " | ".join(f"t={n}" for n in threads) + " |",
         "|---|" + "---:|" * len(threads)]
    for b in tm:
        cells = []
        for n in threads:
            x, y = _num(by.get((f"{b}/libitm", n)), "median_seconds"), \
                _num(by.get((f"{b}/tmkit", n)), "median_seconds")
            cells.append(f"{x / y:.2f}" if x and y else "-")
        L.append(f"| {b} | " + " | ".join(cells) + " |")
    return L + [""]

"""soak_summary.py — summary.md and rss.png of a soak record (bench/soak.sh).

    python bench/scripts/soak_summary.py OUTDIR RUN...

Reads OUTDIR/<run>.json and <run>.csv as tests/soak/ wrote them; writes OUTDIR/summary.md (one
table of the RSS verdicts, one of the load figures) and OUTDIR/rss.png (RSS against time, one
curve per run, the end of warm-up marked) when matplotlib is there.
"""
import csv
import json
import os
import sys


def load(out, run):
    with open(os.path.join(out, f"{run}.json")) as f:
        js = json.load(f)
    with open(os.path.join(out, f"{run}.csv")) as f:
        rows = list(csv.DictReader(f))
    return js, rows


def mb(kb):
    return f"{kb / 1024:.1f}" if isinstance(kb, (int, float)) else "-"


def main():
    out, runs = sys.argv[1], sys.argv[2:]
    data = {r: load(out, r) for r in runs if os.path.exists(os.path.join(out, f"{r}.json"))}
    lines = ["# Soak: the latest run", "",
             "RSS in MB; the reference is the median of the last three samples of warm-up (the "
             "first quarter); the bound on the second half's maximum is "
             f"{next(iter(data.values()))[0].get('rss', {}).get('rule', '-') if data else '-'} "
             "(tests/soak/soak_lib.py). Slope: least squares over everything after warm-up.", "",
             "| run | server | algorithm | seconds | samples | start | end of warm-up | "
             "second half max | growth | slope (KB/min) | bound | verdict |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r, (js, rows) in data.items():
        f = js.get("rss", {})
        lines.append(f"| {r} | {js.get('server')} | {js.get('algorithm')} | {js.get('seconds'):.0f} "
                     f"| {js.get('samples')} | {mb(f.get('first_kb'))} | {mb(f.get('ref_kb'))} | "
                     f"{mb(f.get('peak_second_half_kb'))} | {f.get('growth_pct')} % | "
                     f"{f.get('slope_kb_per_min')} | {mb(f.get('bound_kb'))} | "
                     f"{'flat' if f.get('ok') else 'GROWS'} |")
    for r, (js, rows) in data.items():
        lines += ["", f"## {r}", ""]
        if "memcslap" in js:
            lines += [
                f"- operations: cmd_get {js['cmd_get']:,}, cmd_set {js['cmd_set']:,} "
                f"({js['ops_per_s']:,} per second); get_hits {js['get_hits']:,}, get_misses "
                f"{js['get_misses']:,}",
                f"- evictions {js['evictions']:,}; at the end curr_items {js['curr_items']:,}, "
                f"bytes {js['bytes']:,} (limit_maxbytes {js['limit_maxbytes']:,}, "
                f"total_malloced {js['total_malloced']:,})",
                f"- memcslap: " + "; ".join(
                    f"{t}: {v['runs']} runs, {v['sets']:,} sets, {v['gets']:,} gets "
                    f"({v['hits']:,} hits), {v['failures']} failures"
                    for t, v in js["memcslap"].items()),
                f"- verifying clients: {js['verifier']['set']:,} sets, {js['verifier']['get']:,} "
                f"gets ({js['verifier']['hit']:,} hits, each checked), "
                f"{js['verifier']['delete']:,} deletes, {js['verifier']['errors']} errors",
                f"- descriptors at most {js['fds_max']}, threads at most {js['threads_max']}"]
        else:
            ld, sv, sl, vf = js["load"], js["counters"], js["slowloris"], js["verifier"]
            lines += [
                f"- webcache-load: {ld['total_responses']:,} responses ({ld['rps']} per second, "
                f"mean {ld['mean_ms']} ms, p99 {ld['p99_ms']} ms, max {ld['max_ms']} ms), "
                f"{ld['errors']} errors, {ld['non2xx']} non-2xx",
                f"- verifying client: {vf['requests']:,} requests ({vf['hits']:,} hits) over "
                f"{vf['pages_seen']} pages, each body compared, {vf['errors']} errors",
                f"- server: hits {sv['hits']:,}, misses {sv['misses']:,} (hit rate "
                f"{js['hit_rate']}), renders {sv['renders']:,}, evictions {sv['evictions']:,}; at "
                f"the end {sv['entries']} entries, {sv['bytes']:,} bytes (--max-bytes "
                f"{js['max_bytes']})",
                f"- slowloris ({js['slow_connections']} at a time): {sl['opened']:,} opened, "
                f"{sl['closed_by_server']:,} closed by the server, {sl['answered_408']:,} of them "
                f"answered 408, after {sl['lifetime_s_min']}-{sl['lifetime_s_max']} s",
                f"- descriptors at most {js['fds_max']}, threads at most {js['threads_max']}"]
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"soak_summary: wrote {out}/summary.md")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("soak_summary: no matplotlib, no plot")
        return
    fig, axes = plt.subplots(len(data), 1, figsize=(8, 2.6 * len(data)), squeeze=False)
    for ax, (r, (js, rows)) in zip(axes[:, 0], data.items()):
        t = [float(x["t"]) / 60 for x in rows]
        ax.plot(t, [int(x["rss_kb"]) / 1024 for x in rows], label="VmRSS")
        f = js.get("rss", {})
        if f.get("warmup_end_s") is not None:
            ax.axvline(f["warmup_end_s"] / 60, color="grey", ls=":", label="end of warm-up")
        if f.get("bound_kb"):
            ax.axhline(f["bound_kb"] / 1024, color="red", ls="--", lw=0.8, label="bound")
        ax.set_ylim(0, max(f.get("bound_kb", 0), max(int(x["rss_kb"]) for x in rows)) / 1024 * 1.1)
        ax.set_title(f"{r}: {js.get('server')} ({js.get('algorithm')})", fontsize=9)
        ax.set_ylabel("MB")
        ax.legend(fontsize=7, loc="lower right")
    axes[-1, 0].set_xlabel("minutes")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "rss.png"), dpi=100)
    print(f"soak_summary: wrote {out}/rss.png")


if __name__ == "__main__":
    main()

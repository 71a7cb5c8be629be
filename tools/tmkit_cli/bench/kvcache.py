"""`tmkit bench kvcache`: the memcached experiment (issue 22; docs/kvcache.md). Vyas, Liu and
Spear transactionalized memcached with GCC TM and timed memslap against each build (their
Figure 1: running time, lower is better). Here: every apps/kvcache build (build/bin/kvcache-*),
the TM builds on tmkit (default algorithm, LD_LIBRARY_PATH=build/lib) and on GCC's libitm, and
Debian's /usr/bin/memcached as the reference, each at server threads 1, 2 and 4 (-t), under two
loads: `set` (memcslap's default test: every operation a store, the paper's load) and `get`
(memcslap --test=get: it stores its keys first, untimed, then reads them back: every measured
operation a hit on the read path, reference counts included). Per run: a fresh server on a free
127.0.0.1 port, one `memcslap --binary --concurrency=C --execute-number=N [--test=get]` (its own
time for the measured phase is the running time; operations over it the throughput), the server
stopped with SIGTERM. Repeats interleave the configurations (order rotated each repeat);
medians. Then, unless --no-profiles, one more run of cache-naive, cache, cache-stats and tmkit on
tmkit per load and thread count with TMKIT_STATS (profiles/), their `tmkit report` tables and
`tmkit report --compare` of cache-naive vs cache and cache-stats vs tmkit. Output:
bench/results/kvcache/ (summary.md, runs.csv, medians.csv, profiles.csv, figure1.png,
throughput.png, context.json) unless --out or --experiment."""
import os
import statistics
import subprocess
import sys
import time

from .. import paths
from . import standalone
from .execute import base_env
from .kvcache_server import MEMCACHED, RunError, Server, memcslap, profile_totals

TM_BUILDS = ["cache-naive", "cache", "slabs", "stats", "cache-stats", "cache-stats-slabs", "tmkit"]
PROFILED = ["cache-naive", "cache", "cache-stats", "tmkit"]
COMPARES = [("cache-naive", "cache"), ("cache-stats", "tmkit")]
LOADS = ["set", "get", "mget"]


def configs(bindir, builds):
    """[(label, executable, runtime)]: memcached, baseline, then each TM build on both runtimes."""
    out = [("memcached", MEMCACHED, None)] if "memcached" in builds else []
    if "baseline" in builds:
        out.append(("baseline", os.path.join(bindir, "kvcache-baseline"), None))
    for b in TM_BUILDS:
        if b in builds:
            exe = os.path.join(bindir, f"kvcache-{b}")
            out += [(f"{b}/tmkit", exe, "tmkit"), (f"{b}/libitm", exe, "libitm")]
    return out


def options(ap):
    ap.add_argument("--threads", default="1,2,4", help="server threads (-t), comma-separated")
    ap.add_argument("--concurrency", type=int, default=8, help="memcslap client threads (default 8)")
    ap.add_argument("--number", type=int, help="memcslap --execute-number per client thread "
                    "(default 10000; 2000 with --quick)")
    ap.add_argument("--loads", default="set,get", help="memcslap tests to time, comma-separated: "
                    "set (its default: stores only), get (a load, then reads), mget (default "
                    "set,get)")
    ap.add_argument("--builds", help="comma-separated subset of memcached, baseline, "
                    + ", ".join(TM_BUILDS) + " (default all)")
    ap.add_argument("--no-profiles", action="store_true", help="skip the TMKIT_STATS runs")
    ap.add_argument("--profile-algos", default="default,orec_eager", help="algorithms of the "
                    "profile runs (TMKIT_ALGO; default: the runtime's default, then orec_eager, the "
                    "closest to libitm's ml_wt)")
    ap.add_argument("--no-plots", action="store_true", help="skip the plots")


def env_for(runtime, lib, stats=None, extra=None):
    e = dict(base_env())
    e.update(extra or {})
    if runtime == "tmkit":
        e["LD_LIBRARY_PATH"] = lib
    if stats:
        e["TMKIT_STATS"] = stats
    return e


def one_run(exe, runtime, threads, load, a, lib, log, stats=None, extra=None):
    """(operations, seconds, wall seconds, server's libitm); RunError on any failure."""
    srv = Server(exe, threads, env_for(runtime, lib, stats, extra), log, runtime, lib)
    try:
        ops, secs, wall = memcslap(srv.port, a.concurrency, a.number, load)
        if not srv.alive():
            raise RunError(f"server died during the load (exit {srv.proc.returncode})" + srv.log_tail())
    finally:
        rc = srv.stop()
    if rc != 0:
        raise RunError(f"server exit {rc} after SIGTERM" + srv.log_tail())
    return ops, secs, wall, srv.libitm


def run(argv, root):
    a, repeats = standalone.parse("kvcache", __doc__, argv, "runs per configuration", options)
    a.number = a.number or (2000 if a.quick else 10000)
    try:
        threads = [int(t) for t in a.threads.split(",")]
    except ValueError:
        threads = []
    builds = a.builds.split(",") if a.builds else ["memcached", "baseline"] + TM_BUILDS
    unknown = [b for b in builds if b not in ["memcached", "baseline"] + TM_BUILDS]
    a.loads = a.loads.split(",")
    unknown += [x for x in a.loads if x not in LOADS]
    if not threads or min(threads) < 1 or a.concurrency < 1 or a.number < 1 or unknown:
        print(f"tmkit bench kvcache: bad --threads, --concurrency, --number, --builds or --loads "
              f"{unknown or ''}", file=sys.stderr)
        return 2
    bindir, lib = paths.bindir(root), paths.libdir(root)
    cfgs = configs(bindir, builds)
    missing = [e for _, e, _ in cfgs if not os.path.exists(e)]
    missing += [t for t in ("memcslap",) if not any(os.access(os.path.join(d, t), os.X_OK)
                                                  for d in os.environ.get("PATH", "").split(":"))]
    if missing:
        print(f"tmkit bench kvcache: missing {', '.join(sorted(set(missing)))} (`make build`; "
              "memcached and libmemcached-tools from Debian)", file=sys.stderr)
        return 2
    out, date, meta = standalone.start(root, "kvcache", a)
    logs = os.path.join(out, "logs")
    os.makedirs(logs, exist_ok=True)
    t0 = time.monotonic()
    runs, libitms = [], {}
    for r in range(repeats):
        for load, n in [(x, n) for x in a.loads for n in threads]:
            order = cfgs[r % len(cfgs):] + cfgs[:r % len(cfgs)]
            for label, exe, runtime in order:
                log = os.path.join(logs, f"{label.replace('/', '-')}-{load}-t{n}.log")
                row = {"repeat": r, "load": load, "threads": n, "config": label,
                       "runtime": runtime or "", "operations": "", "seconds": "",
                       "wall_seconds": "", "ops_per_s": "", "status": "ok"}
                try:
                    ops, secs, wall, itm = one_run(exe, runtime, n, load, a, lib, log)
                    row.update(operations=ops, seconds=f"{secs:.3f}", wall_seconds=f"{wall:.3f}",
                               ops_per_s=f"{ops / secs:.0f}" if secs > 0 else "")
                    if runtime:
                        libitms[runtime] = itm
                except (RunError, OSError) as e:
                    row["status"] = str(e)[:300]
                runs.append(row)
                print(f"  r{r} {load} t={n} {label:<26} {row['seconds'] or row['status']} s",
                      flush=True)
    profs = [] if a.no_profiles else profile_runs(root, out, threads, builds, a, bindir, lib)
    meta["duration"] = time.monotonic() - t0
    standalone.finish(meta, out, runs, "runs.csv")
    meds = medians(runs, cfgs, threads, a.loads)
    write_csv(os.path.join(out, "medians.csv"), meds)
    if profs:
        write_csv(os.path.join(out, "profiles.csv"), profs)
    plots, note = ([], "--no-plots") if a.no_plots else make_plots(root, out)
    cmd = "bin/tmkit bench kvcache " + " ".join(argv)
    from .kvcache_summary import write_summary
    write_summary(os.path.join(out, "summary.md"), meta, date, cmd.strip(), a, repeats, threads,
                  cfgs, meds, runs, profs, libitms, plots, note)
    standalone.close(meta, cmd.strip())
    return 0 if all(r["status"] == "ok" for r in runs) and all(p["status"] == "ok" for p in profs) else 1


def profile_runs(root, out, threads, builds, a, bindir, lib):
    """One TMKIT_STATS run per algorithm, thread count and profiled build (on tmkit); each
    profile's `tmkit report` table, and the `--compare` of the pairs."""
    pdir = os.path.join(out, "profiles")
    os.makedirs(pdir, exist_ok=True)
    tmkit = os.path.join(root, "bin", "tmkit")
    rows = []
    for algo, load, n in [(g, x, n) for g in a.profile_algos.split(",") for x in a.loads
                          for n in threads]:
        sfx = f"-{load}-t{n}" + ("" if algo == "default" else f"-{algo}")
        for b in [b for b in PROFILED if b in builds]:
            rows.append(profile_one(tmkit, pdir, b, n, load, algo, sfx, a, bindir, lib))
        for x, y in COMPARES:
            px, py = (os.path.join(pdir, f"{b}{sfx}.json") for b in (x, y))
            if os.path.exists(px) and os.path.exists(py):
                c = subprocess.run([tmkit, "report", "--compare", px, py], capture_output=True,
                                   text=True)
                with open(os.path.join(out, f"compare-{x}-vs-{y}{sfx}.txt"), "w") as f:
                    f.write(f"$ bin/tmkit report --compare {os.path.relpath(px, out)} "
                            f"{os.path.relpath(py, out)}\n\n" + c.stdout + c.stderr)
    return rows


def profile_one(tmkit, pdir, b, n, load, algo, sfx, a, bindir, lib):
    path = os.path.join(pdir, f"{b}{sfx}.json")
    for f in os.listdir(pdir):
        if f == os.path.basename(path) or f.startswith(os.path.basename(path) + "."):
            os.remove(os.path.join(pdir, f))
    row = {"build": b, "algo": algo, "load": load, "threads": n, "seconds": "", "ops_per_s": "", "starts": "",
           "commits": "", "aborts": "", "abort_rate": "", "serial_starts": "",
           "irrevocable_switches": "", "serial_wait_ms": "", "ms_in": "", "ms_lost": "",
           "lost": "", "top_aborts": "", "status": "ok"}
    try:
        extra = {} if algo == "default" else {"TMKIT_ALGO": algo}
        ops, secs, _, _ = one_run(os.path.join(bindir, f"kvcache-{b}"), "tmkit", n, load, a, lib,
                                  path[:-5] + ".log", stats=path, extra=extra)
        t = profile_totals(path)
        row.update(seconds=f"{secs:.3f}", ops_per_s=f"{ops / secs:.0f}", starts=t["starts"],
                   commits=t["commits"], aborts=t["aborts"], abort_rate=f"{t['abort_rate']:.4f}",
                   serial_starts=t["serial_attempts"], irrevocable_switches=t["irrevocable_switches"],
                   serial_wait_ms=f"{t['serial_wait_ms']:.1f}", ms_in=f"{t['inside_ms']:.1f}",
                   ms_lost=f"{t['wasted_ms']:.1f}", lost=f"{t['lost']:.4f}", top_aborts=t["top"])
        rep = subprocess.run([tmkit, "report", path], capture_output=True, text=True)
        with open(os.path.join(pdir, f"report-{b}{sfx}.txt"), "w") as f:
            f.write(rep.stdout + rep.stderr)
    except (RunError, OSError, ValueError, KeyError) as e:
        row["status"] = str(e)[:300]
    print(f"  profile {algo} {load} t={n} {b:<12} {row['seconds'] or row['status']} s, {row['aborts']} "
          f"aborts, {row['serial_starts']} serial starts", flush=True)
    return row


def medians(runs, cfgs, threads, loads):
    out = []
    for load, (label, _, _), n in [(x, c, n) for x in loads for c in cfgs for n in threads]:
        mine = [r for r in runs if r["load"] == load and r["config"] == label and r["threads"] == n]
        ok = [r for r in mine if r["seconds"]]
        secs = [float(r["seconds"]) for r in ok]
        tput = [float(r["ops_per_s"]) for r in ok if r["ops_per_s"]]
        f = lambda xs, fn, d: f"{fn(xs):.{d}f}" if xs else ""  # noqa: E731
        out.append({"load": load, "config": label, "threads": n, "runs": len(ok),
                    "failed": sum(1 for r in mine if r["status"] != "ok"),
                    "median_seconds": f(secs, statistics.median, 3),
                    "min_seconds": f(secs, min, 3), "max_seconds": f(secs, max, 3),
                    "median_ops_per_s": f(tput, statistics.median, 0),
                    "min_ops_per_s": f(tput, min, 0), "max_ops_per_s": f(tput, max, 0)})
    return out


def write_csv(path, rows):
    import csv
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def make_plots(root, out):
    return standalone.venv_plot(root, "kvcache_plot.py", [os.path.join(out, "medians.csv"), out])

"""`tmkit bench webcache`: the web-cache experiment (docs/webcache.md).

For each Zipf exponent s, server build and worker-thread count, a point is: start the server
(apps/webcache) on a free port, warm its cache with webcache-load for --warmup seconds (a URL
stream of seed 1), read /_stats, run webcache-load for --duration seconds (seed 2), read /_stats
again, stop the server with SIGTERM. Hit rate = the window's hits / (hits + misses). The tm
build on tmkit runs with TMKIT_STATS=<file>; its profile, read after exit, gives the abort rate
(all aborts / starts, warm-up included). Builds: nocache, lock, tm-tmkit (the tm build on
build/lib/libitm.so.1, its RUNPATH) and tm-libitm (the same binary on the system libitm through
LD_LIBRARY_PATH); /proc/PID/maps proves which libitm each server loaded. Repeats run every point
again with the builds' order rotated; reports give medians. Once per s, a lock server at the
largest thread count is also measured by wrk (apps/loadgen/wl_wrk_urls.lua) right after
webcache-load, as a cross-check of the load generator.

Output (layout.py): the full default grid in bench/results/webcache/, a --quick or narrowed run
under build/bench-results/, or --experiment NAME / --out DIR: runs.csv (every run), results.csv
(medians per point), crosscheck.csv, summary.md, throughput.png / latency.png
(webcache_plot.py under the project venv) and context.json.
"""
import datetime
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

from .. import paths
from ..report import profiles as report
from . import layout, execute as bench_exec, standalone, webcache_plot as wplot
from .summary import write_csv
from .webcache_args import parse_args
from .webcache_server import (PointError, Server, run_load, run_wrk, system_libitm_dir,
                                    tm_profile)

RUN_FIELDS = ["repeat", "s", "threads", "build", "connections", "rps", "mean_ms", "p50_ms",
              "p99_ms", "errors", "non2xx", "requests", "inflight_at_end", "oldest_inflight_ms",
              "hit_rate", "entries", "evictions",
              "tm_starts", "tm_commits", "tm_aborts", "abort_rate", "libitm", "status"]
RESULT_FIELDS = ["s", "threads", "build", "runs", "failures", "median_rps", "min_rps", "max_rps",
                 "median_mean_ms", "min_mean_ms", "max_mean_ms", "median_p99_ms", "median_hit_rate",
                 "median_abort_rate"]
CROSS_FIELDS = ["s", "threads", "build", "connections", "load_rps", "load_mean_ms", "wrk_rps",
                "wrk_mean_ms", "wrk_errors", "wrk_non2xx", "ratio_wrk_to_load"]


class Experiment:
    def __init__(self, root, a, bindir, workdir, log):
        self.root, self.a, self.bindir, self.work, self.log = root, a, bindir, workdir, log
        self.sysdir = system_libitm_dir()
        self.tmkit_lib = os.path.realpath(os.path.join(os.path.dirname(bindir), "lib"))
        self.env = bench_exec.base_env()
        self.urls = {}

    def url_files(self, s):
        if s not in self.urls:
            files = []
            for seed, n in ((1, 100000), (2, 400000)):
                path = os.path.join(self.work, f"urls-s{s:g}-seed{seed}.txt")
                with open(path, "w") as f:
                    subprocess.run([os.path.join(self.bindir, "webcache-urls"), "--s", str(s),
                                    "--n", str(n), "--seed", str(seed)], stdout=f, check=True)
                files.append(path)
            self.urls[s] = files
        return self.urls[s]

    def conns(self, threads):
        return self.a.connections or 2 * threads + 2

    def start(self, build, threads, tag):
        exe = os.path.join(self.bindir, "webcache-" + build.split("-")[0])
        env = dict(self.env)
        stats_file = None
        if build == "tm-tmkit":
            stats_file = os.path.join(self.work, f"tmstats-{tag}.json")
            env["TMKIT_STATS"] = stats_file
        elif build == "tm-libitm":
            env["LD_LIBRARY_PATH"] = self.sysdir
        args = ["--port", "0", "--threads", str(threads), "--policy", self.a.policy,
                "--max-entries", str(self.a.max_entries), "--max-bytes", str(self.a.max_bytes)]
        srv = Server(exe, args, env, os.path.join(self.work, f"server-{tag}.log"))
        lib = srv.libitm()
        want = {"tm-tmkit": self.tmkit_lib, "tm-libitm": self.sysdir}.get(build)
        if want and os.path.dirname(lib) != want:
            srv.stop()
            raise PointError(f"{build} loaded {lib or 'no libitm'}, expected one in {want}")
        return srv, lib, stats_file

    def point(self, rep, s, threads, build):
        warm, meas = self.url_files(s)
        tag = f"r{rep}-s{s:g}-t{threads}-{build}"
        row = {"repeat": rep, "s": s, "threads": threads, "build": build,
               "connections": self.conns(threads), "status": "ok"}
        srv, lib, stats_file = self.start(build, threads, tag)
        row["libitm"] = lib
        try:
            if self.a.warmup > 0:
                run_load(self.bindir, warm, srv.base, row["connections"], self.a.warmup)
            before = srv.stats()
            res = run_load(self.bindir, meas, srv.base, row["connections"], self.a.duration)
            after = srv.stats()
        finally:
            rc = srv.stop()
        if rc != 0:
            raise PointError(f"server exit status {rc} after SIGTERM{srv.log_tail()}")
        for k in ("rps", "mean_ms", "p50_ms", "p99_ms", "errors", "non2xx", "requests",
                  "inflight_at_end", "oldest_inflight_ms"):
            row[k] = res.get(k, "")
        hits = after.get("hits", 0) - before.get("hits", 0)
        misses = after.get("misses", 0) - before.get("misses", 0)
        row["hit_rate"] = round(hits / (hits + misses), 4) \
            if hits + misses and build != "nocache" else ""
        row["entries"], row["evictions"] = after.get("entries", ""), after.get("evictions", "")
        if stats_file:
            st, co, ab = tm_profile(stats_file)
            row.update(tm_starts=st, tm_commits=co, tm_aborts=ab,
                       abort_rate=round(ab / st, 5) if st else 0.0)
        if res["errors"]:
            row["status"] = f"{res['errors']} request errors"
        return row

    def crosscheck(self, s, threads, build="lock"):
        warm, meas = self.url_files(s)
        conns = self.conns(threads)
        srv, _, _ = self.start(build, threads, f"x-s{s:g}-{build}")
        try:
            run_load(self.bindir, warm, srv.base, conns, max(self.a.warmup, 0.2))
            lo = run_load(self.bindir, meas, srv.base, conns, self.a.duration)
            wr = run_wrk(self.root, meas, srv.base, conns, self.a.duration)
        finally:
            srv.stop()
        return {"s": s, "threads": threads, "build": build, "connections": conns,
                "load_rps": lo["rps"], "load_mean_ms": lo["mean_ms"], "wrk_rps": wr["rps"],
                "wrk_mean_ms": wr["mean_ms"], "wrk_errors": wr["errors"],
                "wrk_non2xx": wr["non2xx"],
                "ratio_wrk_to_load": f"{wr['rps'] / lo['rps']:.3f}" if lo["rps"] else ""}


def make_plots(root, outdir):
    return standalone.venv_plot(root, "webcache_plot.py", [os.path.join(outdir, "results.csv"), outdir])


def check_build(bindir, a):
    need = ["webcache-urls", "webcache-load"] + sorted({"webcache-" + b.split("-")[0]
                                                        for b in a.builds})
    missing = [n for n in need if not os.access(os.path.join(bindir, n), os.X_OK)]
    if missing:
        return f"{os.path.join(bindir, missing[0])} is missing; run `make build` first"
    if any(b.startswith("tm") for b in a.builds) and not system_libitm_dir():
        return "gcc does not know the system libitm.so.1 (apt-get install libitm1)"
    if a.crosscheck == "wrk" and not shutil.which("wrk"):
        return "wrk is not installed (apt-get install wrk, or --crosscheck none)"
    return None


def run(argv, root):
    log = lambda msg: print(msg, flush=True)  # noqa: E731
    try:
        a = parse_args(argv, __doc__.split("\n\n")[0])
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 2
    builddir = os.path.abspath(a.build) if a.build else paths.builddir(root)
    bindir = os.path.join(builddir, "bin")
    problem = check_build(bindir, a)
    if problem:
        print(f"tmkit bench webcache: {problem}", file=sys.stderr)
        return 2
    if a.experiment and layout.check_name(a.experiment):
        print(f"tmkit bench webcache: {layout.check_name(a.experiment)}", file=sys.stderr)
        return 2
    # The full default grid is kept in bench/results/webcache/; a narrowed grid (--s, --builds,
    # --threads) or --quick run is for checking and goes under build/ unless told otherwise.
    run_dir = layout.Run(root, "webcache", a.out, a.experiment, a.quick, argv_has_selection(argv),
                         scratch_label="webcache-partial")
    outdir = run_dir.dir
    catalog = subprocess.run([os.path.join(bindir, "webcache-urls"), "--catalog"],
                             capture_output=True, text=True).stdout.count("\n")
    meta = {"date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
            "command": "bin/tmkit bench webcache" + "".join(" " + shlex.quote(x) for x in argv),
            "machine": bench_exec.machine_info(), "revision": bench_exec.git_revision(root),
            "load_start": bench_exec.loadavg(), "catalog": catalog}
    points = len(a.s) * len(a.threads) * len(a.builds) * a.repeats
    log(f"tmkit bench webcache: s {','.join(f'{s:g}' for s in a.s)} x threads "
        f"{','.join(map(str, a.threads))} x {', '.join(a.builds)} x {a.repeats} repeat(s) = "
        f"{points} runs of {a.warmup:g} + {a.duration:g} s")
    rows, failures, cross = [], {}, []
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="webcache-bench-") as work:
        ex = Experiment(root, a, bindir, work, log)
        for rep in range(1, a.repeats + 1):
            for s in a.s:
                for t in a.threads:
                    k = (rep - 1) % len(a.builds)
                    for b in a.builds[k:] + a.builds[:k]:
                        try:
                            rows.append(ex.point(rep, s, t, b))
                        except (PointError, OSError, ValueError, subprocess.SubprocessError,
                                report.ProfileError) as e:
                            failures.setdefault((s, t, b), []).append(str(e))
                            log(f"  FAILED s={s:g} threads={t} {b}: {e}")
            log(f"  repeat {rep}/{a.repeats} done, {time.monotonic() - t0:.0f} s elapsed")
        if a.crosscheck == "wrk" and "lock" in a.builds:
            for s in a.s:
                try:
                    cross.append(ex.crosscheck(s, max(a.threads)))
                except (PointError, OSError, ValueError, subprocess.SubprocessError) as e:
                    failures.setdefault((s, max(a.threads), "crosscheck"), []).append(str(e))
                    log(f"  FAILED cross-check s={s:g}: {e}")
            log(f"  cross-checks done, {time.monotonic() - t0:.0f} s elapsed")
    meta["duration"], meta["load_end"] = time.monotonic() - t0, bench_exec.loadavg()
    results = wplot.aggregate(rows, failures, a)
    write_csv(os.path.join(outdir, "runs.csv"), rows, RUN_FIELDS)
    write_csv(os.path.join(outdir, "results.csv"), results, RESULT_FIELDS)
    if cross:
        write_csv(os.path.join(outdir, "crosscheck.csv"), cross, CROSS_FIELDS)
    plots, note = ([], "--no-plots") if a.no_plots else make_plots(root, outdir)
    if note:
        meta["plot_note"] = note
        log(f"  plots skipped: {note}")
    lines = wplot.write_summary(os.path.join(outdir, "summary.md"), meta, results, cross, failures,
                          plots, a)
    start = lines.index("## Throughput and latency")
    for line in lines[start:]:
        if line.startswith("## Plots"):
            break
        if not line.startswith("|---"):
            log("  " + line if line else "")
    layout.finish(run_dir, meta["command"], meta)
    log(f"results: {run_dir.rel()}/ ({', '.join(run_dir.written())}, context.json)")
    return 1 if failures else 0


def argv_has_selection(argv):
    """A run that narrows the default grid does not replace the kept one."""
    return any(x.split("=")[0] in ("--s", "--builds", "--threads") for x in argv)

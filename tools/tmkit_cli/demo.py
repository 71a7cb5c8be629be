"""`tmkit demo` / `make demo`: the short web-cache evaluation (docs/webcache.md).

The experiment of `tmkit bench webcache` with one repeat of short runs: Zipf s = 0.1, 1, 2 x the
four server builds (no cache, lock, TM on tmkit, TM on the system libitm) x 1..nproc worker
threads, plus one wrk cross-check per s; about two minutes. It prints the table and where the
CSV files and plots are (build/webcache-demo/). The full, committed run is
bench/results/webcache/summary.md.

`tmkit demo --kvcache` is a two-minute version of the memcached experiment (`tmkit bench
kvcache`, docs/kvcache.md): every kvcache build on tmkit and on libitm and Debian's memcached
under one memcslap run each at server threads 1, 2 and 4, and the profiles that answer the
paper's question (build/kvcache-demo/). `tmkit demo --bank` is the former demo: the bank program
under every runtime configuration.
"""
import argparse
import os
import shutil
import subprocess

from . import paths

DEMO_ARGS = ["--repeats", "1", "--warmup", "0.5", "--duration", "1.5"]


def webcache(root):
    from .bench import webcache as bench_webcache
    bindir = paths.bindir(root)
    need = ["webcache-nocache", "webcache-lock", "webcache-tm", "webcache-urls", "webcache-load"]
    missing = [n for n in need if not os.access(os.path.join(bindir, n), os.X_OK)]
    if missing:
        print(f"tmkit demo: {os.path.join(bindir, missing[0])} is missing; run `make build` "
              "(apps/webcache and apps/loadgen build it)")
        return 2
    if not os.path.exists(os.path.join(paths.libdir(root), "libitm.so.1")):
        print(f"tmkit demo: {paths.libdir(root)}/libitm.so.1 is missing; run `make build`")
        return 2
    if not shutil.which("man2html") or not os.path.isdir("/usr/share/man/man3"):
        print("tmkit demo: the server renders man pages with man2html; run scripts/deps.sh "
              "(apt-get install man2html manpages manpages-dev)")
        return 2
    args = list(DEMO_ARGS)
    if not shutil.which("wrk"):
        print("tmkit demo: wrk not found, skipping the cross-check (apt-get install wrk)")
        args += ["--crosscheck", "none"]
    out = os.path.join(paths.builddir(root), "webcache-demo")
    print("web-cache demo: man pages rendered by man2html and cached; Zipf-distributed requests "
          "from webcache-load; ~2 minutes")
    rc = bench_webcache.run(args + ["--out", out], root)
    full = os.path.join(root, "bench", "results", "webcache", "summary.md")
    print("")
    print(f"plots: {os.path.relpath(out, root)}/throughput.png, "
          f"{os.path.relpath(out, root)}/latency.png; tables: {os.path.relpath(out, root)}/summary.md")
    if os.path.exists(full):
        print(f"full run (3 repeats, longer runs) and the comparison with the paper: "
              f"{os.path.relpath(full, root)}, docs/webcache.md")
    if rc != 0:
        print("tmkit demo: some points failed; see the Failures section of the summary")
    return rc


def bank(root):
    """The former demo: bank transfers + audits under every runtime, 1 and 2 threads."""
    bindir = paths.bindir(root)
    exe = os.path.join(bindir, "bank-tm")
    if not os.path.exists(exe):
        print(f"tmkit demo: {exe} is missing; run `make build`")
        return 2
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("TMKIT_") and k not in ("LD_LIBRARY_PATH", "ITM_DEFAULT_METHOD")}
    configs = [("mutex", os.path.join(bindir, "bank-mutex"), {})]
    configs += [(f"tmkit {name}", exe, {"TMKIT_ALGO": name, "LD_LIBRARY_PATH": paths.libdir(root)})
                for name, _ in paths.algorithms(root)]
    configs += [("libitm (system)", exe, {}), ("libitm ml_wt", exe, {"ITM_DEFAULT_METHOD": "ml_wt"})]
    print("bank: 1024 accounts, transfers + 1% full audits, 0.5 s per cell "
          "(ops/s; 'ok' = money conserved)")
    print(f"{'runtime':<18}{'1 thread':>16}{'2 threads':>16}")
    failures = 0
    for label, prog, extra in configs:
        cells = []
        for threads in ("1", "2"):
            p = subprocess.run([prog, "--threads", threads, "--seconds", "0.5"],
                               capture_output=True, text=True, env=dict(base, **extra))
            f = dict(kv.split("=", 1) for kv in p.stdout.split() if "=" in kv)
            if p.returncode != 0 or f.get("ok") != "1":
                failures += 1
                cells.append("FAILED")
                if p.stderr.strip():
                    print(f"  {label}: {p.stderr.strip()}")
            else:
                cells.append(f"{float(f['ops_per_s']):>12,.0f} ok")
        print(f"{label:<18}{cells[0]:>16}{cells[1]:>16}")
    return 1 if failures else 0


# Both loads (set, then get: the read path's reference counts), each half the full run's size.
KVCACHE_DEMO_ARGS = ["--repeats", "1", "--number", "5000", "--threads", "1,2,4",
                     "--profile-algos", "default"]


def kvcache(root):
    from .bench import kvcache as bench_kvcache
    out = os.path.join(paths.builddir(root), "kvcache-demo")
    print("kvcache demo: the memcached experiment, one memcslap --binary run per load, build, "
          "runtime and server thread count; ~2 minutes")
    rc = bench_kvcache.run(KVCACHE_DEMO_ARGS + ["--out", out], root)
    full = os.path.join(root, "bench", "results", "kvcache", "summary.md")
    print("")
    if os.path.exists(full):
        print(f"full run (5 repeats, profiles under two algorithms): {os.path.relpath(full, root)}; "
              "what it says about the paper's question: docs/kvcache.md")
    return rc


def run(root, argv=None):
    p = argparse.ArgumentParser(prog="tmkit demo", description=__doc__.split("\n\n")[0])
    g = p.add_mutually_exclusive_group()
    g.add_argument("--bank", action="store_true", help="the bank-program demo instead")
    g.add_argument("--kvcache", action="store_true",
                   help="the memcached experiment's two-minute version instead (docs/kvcache.md)")
    try:
        a = p.parse_args(argv or [])
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 2
    if a.kvcache:
        return kvcache(root)
    return bank(root) if a.bank else webcache(root)

#!/usr/bin/env python3
"""The end-to-end test of `tmkit advise` on a real program (label advise-real, `make
test-real`; docs/advise.md, "Carrying a real program across: the end-to-end test").

For memcached (the default `--program`): Debian's source package as it comes, configured with
its defaults and built under `bear` (the lock build and its compile database); its own test
files run once against that build (cached per source version): the files it passes are the
ones the transactional build must pass. Then `tmkit advise --apply` writes the transactional
tree, which is configured afresh with the flags it wrote (`tmkit-build.env`) and built with the
program's own flags (-Werror included); the baseline-passing files run against it on tmkit for
every TMKIT_ALGO x worker threads (-t) of the matrix; a failed file is retried, and run on the
lock build with the same -t to tell a failure of the program's configuration from tmkit's. One
more run records a TMKIT_STATS profile per server and prints `tmkit report --merge` of them:
which sections ran speculatively and which went serial. Last, a table (file x configuration).

Exit 0 when every baseline-passing file passes in every configuration (flaky ones, failing
once and passing on the retry, are listed), 1 otherwise or when a step fails (with the
compiler's first errors for a build), 77 when a prerequisite is missing (named).

With --bench, last: on the builds just made, bench/scripts/memcached_load.py (the throughput
of the unmodified, Debian's and the transactional memcached under a get/set load, and its
profile) or, for zstd, bench/scripts/zstd_speed.py (compression speed against the lock build);
bench/results/advise-memcached.

Usage: e2e.sh ROOT BUILD [--program memcached|zstd] [--algos A,B] [--threads 1,2]
       [--files getset,t/incrdecr.t] [--jobs N] [--retries N] [--no-stats] [--rebaseline]
       [--bench [--bench-rounds N]]
Work directory (cached between runs, never committed): BUILD/advise-real/."""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import util  # noqa: E402
from util import Failure, Skip  # noqa: E402

ALGOS = "adaptive,gl_wt,orec_eager,serialirr"
THREADS = "1,2,4"
KNOWN_ALGOS = ("adaptive", "norec", "orec_lazy", "orec_eager", "gl_wt", "serialirr", "htm")


def options(argv):
    p = argparse.ArgumentParser(prog="e2e.sh ROOT BUILD", description=__doc__.split("\n\n")[0])
    p.add_argument("root")
    p.add_argument("build")
    p.add_argument("--program", choices=("memcached", "zstd"), default="memcached")
    p.add_argument("--algos", default=ALGOS, help=f"TMKIT_ALGO values (default {ALGOS})")
    p.add_argument("--threads", default=THREADS,
                   help=f"worker threads: memcached -t, zstd -T (default {THREADS})")
    p.add_argument("--files", default="",
                   help="only these test files (comma-separated, `getset` or `t/getset.t`)")
    p.add_argument("--jobs", type=int, default=2, help="test files run at once (default 2)")
    p.add_argument("--retries", type=int, default=1,
                   help="runs of a failed file again before it counts as failed (default 1)")
    p.add_argument("--file-timeout", type=int, default=900, help="seconds per test file")
    p.add_argument("--entry", default="memcached_debug-",
                   help="tmkit advise --entry: the objects the tests run (default: the "
                        "debug build's, memcached_debug-*.o); '' for the whole database")
    p.add_argument("--no-stats", action="store_true", help="skip the TMKIT_STATS run")
    p.add_argument("--no-suite", action="store_true",
                   help="zstd: skip its own tests/playTests.sh (run once per algorithm)")
    p.add_argument("--stats-algo", default="adaptive")
    p.add_argument("--stats-threads", type=int, default=4)
    p.add_argument("--stats-files", default="t/getset.t,t/incrdecr.t,t/noreply.t,t/lru.t")
    p.add_argument("--reuse-tree", action="store_true",
                   help="do not run the advisor: build and test the transactional tree of the "
                        "last run as it is now (e.g. after editing it by hand)")
    p.add_argument("--bench", action="store_true",
                   help="after the tests: memcached's throughput and profile under a get/set "
                        "load (bench/scripts/memcached_load.py), zstd's compression speed "
                        "(bench/scripts/zstd_speed.py)")
    p.add_argument("--bench-rounds", type=int, default=5, help="with --bench: rounds (default 5)")
    p.add_argument("--rebaseline", action="store_true",
                   help="run the baseline's test files again instead of using the cached result")
    a = p.parse_args(argv)
    a.root, a.build = os.path.abspath(a.root), os.path.abspath(a.build)
    a.algos = [x for x in a.algos.split(",") if x]
    try:
        a.threads = [int(x) for x in a.threads.split(",") if x]
    except ValueError:
        p.error(f"--threads {a.threads}: give numbers, e.g. 1,2,4")
    if not a.algos or not a.threads or a.jobs < 1 or min(a.threads) < 1:
        p.error("--algos, --threads need at least one value; --jobs and threads are >= 1")
    unknown = [x for x in a.algos if x not in KNOWN_ALGOS]
    if unknown:
        p.error(f"--algos: unknown {', '.join(unknown)} (known: {', '.join(KNOWN_ALGOS)})")
    a.files = [x for x in a.files.split(",") if x]
    a.stats_files = [x for x in a.stats_files.split(",") if x]
    a.work = os.path.join(a.build, "advise-real")
    a.lib = os.path.join(a.build, "lib")
    return a


def main(argv):
    a = options(argv)
    util.stop_on_signals()
    try:
        if not os.path.exists(os.path.join(a.lib, "libitm.so.1")):
            raise Failure(f"{a.lib}/libitm.so.1 missing (build the itm target first)")
        # Held (open) until the process ends.
        a.lock_file = util.hold(os.path.join(a.work, f"e2e-{a.program}.lock"),
                                os.path.join(a.work, f"e2e-{a.program}"))
        if a.program == "zstd":
            import zstd
            rc = zstd.main(a)
            script, extra = "zstd_speed.py", []
        else:
            import memcached_flow
            rc = memcached_flow.main(a)
            # This process holds the work directory's lock: the script must not wait for it.
            script, extra = "memcached_load.py", ["--no-lock"]
        if rc == 0 and a.bench:
            rc = subprocess.call([sys.executable, os.path.join(a.root, "bench", "scripts", script),
                                  a.root, a.build, "--rounds", str(a.bench_rounds)] + extra)
        return rc
    except Skip as e:
        print(f"SKIP: {e}", flush=True)
        return util.SKIP
    except Failure as e:
        print(f"FAIL: {e}", flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

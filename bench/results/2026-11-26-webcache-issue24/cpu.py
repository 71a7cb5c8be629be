#!/usr/bin/env python3
"""CPU time per request, before and after (issue 24): a measure that the machine's load does
not move much, unlike requests/s on two cores shared with other jobs.

usage: cpu.py BEFORE_TREE AFTER_TREE [REPEATS]   (prints a markdown table on stdout)

Per point (tree, build lock or tm-tmkit, s 0.1 or 1, 1 worker): a fresh server with the
experiment's flags (--policy gdsf --max-entries 256 --max-bytes 67108864), webcache-load with 4
connections for 1 s on the seed-1 stream then 4 s on the seed-2 stream (the default run's
shape), SIGTERM; the server's CPU time, user + system, its man2html children included (wait4's
rusage covers the children it reaped), divided by the responses webcache-load received. Both
trees' points alternate; medians of REPEATS (default 3).
"""
import json
import os
import re
import select
import signal
import statistics
import subprocess
import sys
import tempfile

FLAGS = ["--policy", "gdsf", "--max-entries", "256", "--max-bytes", "67108864", "--threads", "1"]


def point(tree, build, urls):
    exe = os.path.join(tree, "build", "bin", "webcache-" + build.split("-")[0])
    p = subprocess.Popen([exe, "--port", "0", *FLAGS], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    select.select([p.stdout], [], [], 10)
    port = re.search(rb":(\d+)", p.stdout.readline()).group(1).decode()
    load = os.path.join(tree, "build", "bin", "webcache-load")
    n = 0
    for f, secs in ((urls[0], "1"), (urls[1], "4")):
        r = subprocess.run([load, "--url-file", f, "--base", f"http://127.0.0.1:{port}",
                            "--connections", "4", "--duration", secs, "--json"],
                           capture_output=True, text=True, check=True)
        n += json.loads(r.stdout)["total_responses"]
    p.send_signal(signal.SIGTERM)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = 0
    if status != 0:
        raise SystemExit(f"{exe}: exit status {status}")
    return (ru.ru_utime + ru.ru_stime) / n * 1e6, n


def main():
    before, after = sys.argv[1], sys.argv[2]
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        urls = {}
        for s in ("0.1", "1"):
            urls[s] = []
            for seed, n in ((1, 100000), (2, 400000)):
                path = os.path.join(tmp, f"s{s}-{seed}.txt")
                with open(path, "w") as f:
                    subprocess.run([os.path.join(after, "build", "bin", "webcache-urls"), "--s",
                                    s, "--n", str(n), "--seed", str(seed)], stdout=f, check=True)
                urls[s].append(path)
        for rep in range(reps):
            for s in ("0.1", "1"):
                for build in ("lock", "tm-tmkit"):
                    order = (("before", before), ("after", after))
                    for kind, tree in (order if rep % 2 == 0 else order[::-1]):
                        us, n = point(tree, build, urls[s])
                        res.setdefault((s, build, kind), []).append((us, n))
                        print(f"rep {rep + 1} s {s} {build} {kind}: {us:.0f} us/request "
                              f"({n} responses)", file=sys.stderr, flush=True)
    print("| s | build | before us CPU / request | after us CPU / request | after / before | "
          "before responses | after responses |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for s in ("0.1", "1"):
        for build in ("lock", "tm-tmkit"):
            b = res[(s, build, "before")]
            a = res[(s, build, "after")]
            mb = statistics.median(x[0] for x in b)
            ma = statistics.median(x[0] for x in a)
            print(f"| {s} | {build} | {mb:.0f} ({', '.join(f'{x[0]:.0f}' for x in b)}) | "
                  f"{ma:.0f} ({', '.join(f'{x[0]:.0f}' for x in a)}) | {ma / mb:.2f} | "
                  f"{statistics.median(x[1] for x in b):.0f} | "
                  f"{statistics.median(x[1] for x in a):.0f} |")


if __name__ == "__main__":
    main()

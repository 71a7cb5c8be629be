"""webcache-load against a local test server: framing, counts, errors, strict flags.

usage: wl_test_load.py BINDIR
The server (wl_test_server.py) answers with Content-Length, chunked, `Connection: close` and
404 responses; webcache-load must read them all without errors, report every response the
server counted (total_responses), and classify 404s as non-2xx.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request

BIN = os.path.join(sys.argv[1], "webcache-load")
HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def load(*args, timeout=60):
    return subprocess.run([BIN] + list(args), capture_output=True, text=True, timeout=timeout)


srv = subprocess.Popen([sys.executable, os.path.join(HERE, "wl_test_server.py")],
                       stdout=subprocess.PIPE, text=True)
try:
    m = re.search(r"listening on (\S+)", srv.stdout.readline())
    base = "http://" + m.group(1)
    with tempfile.TemporaryDirectory() as d:
        mixed = os.path.join(d, "mixed.txt")
        with open(mixed, "w") as f:   # 2 of 10 are 404s
            f.write("/cl/1\n/chunk/1\n/close/1\n/cl/2\n/404/1\n\n/cl/3\n/chunk/2\n/close/2\n"
                    "/cl/4\n/404/2\n")
        full = os.path.join(d, "full.txt")
        with open(full, "w") as f:
            f.write("".join(f"{base}/cl/{i}\n" for i in range(5)))

        p = load("--url-file", mixed, "--base", base, "--connections", "4", "--duration", "1.5",
                 "--warmup", "0.3", "--json")
        check(p.returncode == 0, f"mixed run exited {p.returncode}: {p.stderr}")
        r = json.loads(p.stdout)
        with urllib.request.urlopen(base + "/_count") as resp:
            served = json.loads(resp.read())["requests"]
        print("mixed:", p.stdout.strip(), "server:", served)
        check(r["errors"] == 0, f"errors: {r}")
        check(r["requests"] > 20, f"too few requests: {r['requests']}")
        check(served == r["total_responses"],
              f"server served {served}, webcache-load reports {r['total_responses']}")
        check(abs(r["non2xx"] / r["requests"] - 0.2) < 0.06, f"non2xx share: {r}")
        check(0 < r["p50_ms"] <= r["p90_ms"] <= r["p99_ms"] <= r["max_ms"], f"percentiles: {r}")
        check(abs(r["rps"] - r["requests"] / r["seconds"]) < 1, f"rps: {r}")
        check(r["bytes"] > r["requests"] * 500, f"bytes: {r}")

        # Full URLs carry the address; key=value output by default.
        p = load("--url-file", full, "--connections", "2", "--duration", "0.5")
        kv = dict(x.split("=", 1) for x in p.stdout.split())
        check(p.returncode == 0 and int(kv.get("errors", -1)) == 0 and
              int(kv.get("requests", 0)) > 0, f"full URLs: {p.returncode} {p.stdout} {p.stderr}")

        # A stalled server: timeouts are counted, the run still ends on time.
        slow = os.path.join(d, "slow.txt")
        with open(slow, "w") as f:
            f.write("/slow/1\n")
        p = load("--url-file", slow, "--base", base, "--connections", "2", "--duration", "1",
                 "--timeout", "0.3", "--json")
        r = json.loads(p.stdout or "{}")
        check(r.get("err_timeout", 0) > 0, f"no timeouts counted: {p.stdout} {p.stderr}")

        # Nothing listening: connection errors, exit 1.
        p = load("--url-file", mixed, "--base", "http://127.0.0.1:1", "--duration", "0.3")
        check(p.returncode == 1 and "err_connect=0" not in p.stdout,
              f"refused: exit {p.returncode}, {p.stdout} {p.stderr}")

        # Bad usage: exit 2.
        junk = os.path.join(d, "junk.txt")
        with open(junk, "w") as f:
            f.write("/ok\nnot a url\n")
        for args in ([], ["--url-file", mixed], ["--url-file", mixed, "--base", base,
                                                 "--connections", "0"],
                     ["--url-file", mixed, "--base", base, "--duration", "x"],
                     ["--url-file", mixed, "--base", base, "--duration", "0"],
                     ["--url-file", mixed, "--base", base, "--warmup", "-1"],
                     ["--url-file", mixed, "--base", base, "--bogus", "1"],
                     ["--url-file", mixed, "--base", "ftp://x"],
                     ["--url-file", os.path.join(d, "none.txt"), "--base", base],
                     ["--url-file", junk, "--base", base],
                     ["--url-file", mixed, "--base", base, "--json=1"],
                     ["--url-file", mixed, "--base", base, "positional"]):
            p = load(*args)
            check(p.returncode == 2 and p.stderr.startswith("webcache-load: "),
                  f"{args}: exit {p.returncode}, stderr {p.stderr.strip()!r}")
        check(load("--help").returncode == 0, "--help must exit 0")
finally:
    srv.terminate()
    srv.wait(timeout=10)

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("webcache-load: ok")

"""webcache-load against the real server (apps/webcache, lock build; tm build on tmkit):
every response webcache-load reports is one the server's /_stats counted, without errors
(the few pages man2html cannot render come back as 502; at most 1% of responses).

usage: wl_test_webcache.py BINDIR
"""
import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import urllib.request

BINDIR = sys.argv[1]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def start(build, env):
    p = subprocess.Popen([os.path.join(BINDIR, "webcache-" + build), "--port", "0",
                          "--threads", "2", "--max-entries", "64"],
                         stdout=subprocess.PIPE, text=True, env=env)
    ready, _, _ = select.select([p.stdout], [], [], 15)
    m = re.search(r"listening on (\S+)", p.stdout.readline() if ready else "")
    if not m:
        p.kill()
        sys.exit(f"webcache-{build} did not print its address")
    return p, "http://" + m.group(1)


def stats(base):
    with urllib.request.urlopen(base + "/_stats", timeout=10) as r:
        return json.loads(r.read())


def stop(p):
    p.send_signal(signal.SIGTERM)
    rc = p.wait(timeout=20)
    p.stdout.close()
    return rc


env = {k: v for k, v in os.environ.items() if not k.startswith("TMKIT_") and k != "LD_LIBRARY_PATH"}
with tempfile.TemporaryDirectory() as d:
    urls = os.path.join(d, "urls.txt")
    with open(urls, "w") as f:
        subprocess.run([os.path.join(BINDIR, "webcache-urls"), "--s", "1", "--n", "5000",
                        "--seed", "3"], stdout=f, check=True)
    profile = os.path.join(d, "tm.json")
    for build, extra in (("lock", {}), ("tm", {"TMKIT_STATS": profile})):
        p, base = start(build, dict(env, **extra))
        before = stats(base)
        r = subprocess.run([os.path.join(BINDIR, "webcache-load"), "--url-file", urls, "--base",
                            base, "--connections", "4", "--duration", "1.5", "--json"],
                           capture_output=True, text=True, timeout=60)
        after = stats(base)
        rc = stop(p)
        check(r.returncode == 0, f"{build}: webcache-load exit {r.returncode}: {r.stderr}")
        res = json.loads(r.stdout or "{}")
        served = after["requests"] - before["requests"]
        print(f"{build}: load {r.stdout.strip()}\n{build}: /_stats before {before} after {after}")
        # The second /_stats may or may not count itself.
        check(served - res.get("total_responses", -1) in (0, 1),
              f"{build}: server counted {served}, webcache-load {res.get('total_responses')}")
        # 20 of the ~3,500 pages (cmake-*(7), bpf-helpers(7)) defeat man2html: 502, not cached.
        check(res.get("errors") == 0 and res.get("non2xx", 0) <= 0.01 * res.get("requests", 0),
              f"{build}: errors in {res}")
        looked_up = (after["hits"] + after["misses"]) - (before["hits"] + before["misses"])
        check(abs(looked_up - res.get("total_responses", 0)) <= 1,
              f"{build}: hits + misses grew by {looked_up}, {res.get('total_responses')} responses")
        check(after["hits"] > before["hits"], f"{build}: no cache hits at s=1")
        check(rc == 0, f"{build}: exit status {rc} after SIGTERM")
    try:
        prof = json.load(open(profile))
        starts = sum(s.get("starts", 0) for s in prof["sites"])
        check(starts > 0, "tm build on tmkit: the TMKIT_STATS profile has no transaction")
    except (OSError, ValueError, KeyError) as e:
        check(False, f"tm build on tmkit: no readable TMKIT_STATS profile at exit ({e})")

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("webcache-load vs webcache: ok")

#!/usr/bin/env python3
"""The server held under attack by slowhttptest (issue 24 acceptance).

usage: test_attack.py BINARY [slowloris|slowread|wrk ...]

  slowloris  slowhttptest -H: 500 connections sending a header line every 2 s for 12 s
  slowread   slowhttptest -X: 500 connections pipelining 3 requests for a 200 KB page and
             reading 32 bytes a second through a 512-1024 byte window, for 12 s
  wrk        wrk with 200 connections for 3 s: every connection served (no timeout, no
             socket error: a connection left waiting over 2 s counts as a timeout)
During each attack a probe client (its own address, 127.0.0.2) asks for a cached page every
50 ms; its median latency must stay under 50 ms and every request must succeed. The server
runs with 2 workers and no per-client limit (the attack and the probe would share it).
"""
import os
import re
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_harness import Server, check, finish, run_selected  # noqa: E402
from test_events import check_probe, probe  # noqa: E402

ARGS = ("--threads", "2", "--max-connections-per-client", "0")


def attack(binary, what, cmd_of):
    srv = Server(binary, *ARGS)
    srv.get("/man/3/printf")  # cached: the probe measures the server, not man2html
    cmd = cmd_of(srv.port)
    out = []
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    t = threading.Thread(target=lambda: out.append(proc.communicate()[0]))
    t.start()
    time.sleep(3)  # 500 connections at 250 per second
    lat = probe(srv, 150, 0.05, src="127.0.0.2")
    proc.wait(timeout=60)
    t.join()
    log = re.sub(r"\x1b\[[0-9;]*m", "", out[0] if out else "")
    conn = [int(x) for x in re.findall(r"connected:\s+(\d+)", log)]
    peak = max(conn or [0])
    print(f"{what}: slowhttptest held up to {peak} connections at once")
    check(peak >= 250, f"{what}: the attack held only {peak} connections: {log[-400:]!r}")
    check_probe(lat, what)
    check(srv.get("/_stats")[0] == 200, f"{what}: server unwell after the attack")
    srv.stop(f"{what} server")


def test_slowloris(binary):
    attack(binary, "slowloris", lambda port: [
        "slowhttptest", "-H", "-c", "500", "-r", "250", "-i", "2", "-l", "12", "-x", "24",
        "-p", "3", "-u", f"http://127.0.0.1:{port}/"])


def test_slowread(binary):
    attack(binary, "slowread", lambda port: [
        "slowhttptest", "-X", "-c", "500", "-r", "250", "-l", "12", "-k", "3", "-n", "1",
        "-w", "512", "-y", "1024", "-z", "32", "-p", "3",
        "-u", f"http://127.0.0.1:{port}/man/5/proc"])


def test_wrk(binary):
    srv = Server(binary, *ARGS, "--max-keepalive-requests", "0")
    srv.get("/man/3/printf")
    r = subprocess.run(["wrk", "-t", "2", "-c", "200", "-d", "3s", "--timeout", "2s",
                        f"http://127.0.0.1:{srv.port}/man/3/printf"],
                       capture_output=True, text=True, timeout=60)
    m = re.search(r"(\d+) requests in", r.stdout)
    n = int(m.group(1)) if m else 0
    print("wrk:", " ".join(r.stdout.split()))
    check(r.returncode == 0 and n >= 2000, f"wrk: {n} requests, exit {r.returncode}")
    check("Socket errors" not in r.stdout, f"wrk: {r.stdout.strip()[-300:]}")
    check("Non-2xx" not in r.stdout, "wrk: non-2xx responses")
    srv.stop("wrk server")


def main():
    binary = sys.argv[1]
    only = sys.argv[2:]
    for tool in ("slowhttptest", "wrk"):
        if not shutil.which(tool):
            print(f"FAIL: {tool} not installed (scripts/deps.sh installs it)", file=sys.stderr)
            return 1
    run_selected((test_slowloris, test_slowread, test_wrk), only, binary)
    return finish()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The server held under attack by slowhttptest (issue 24 acceptance).

usage: test_attack.py BINARY [slowloris|slowread|wrk ...]

  slowloris  slowhttptest -H: 500 connections sending a header line every 2 s for 12 s
  slowread   slowhttptest -X: 500 connections pipelining 3 requests for a 200 KB page and
             reading 32 bytes a second through a 512-1024 byte window, for 12 s
  defaults   slowloris again against the server with its default limits: the attack's
             address gets at most --max-connections-per-client (256) connections, one more from
             it is answered 503 with Connection: close and closed (the README's table), and the
             probe from its own address is still served as above
  wrk        wrk with 200 connections for 3 s, default limits: every connection served (no
             timeout, no socket error: a connection left waiting over 2 s counts as a timeout;
             wrk reconnects after the 100th response of a connection, which says close)
During each attack a probe client (its own address, 127.0.0.2) asks for a cached page every
50 ms; its median latency must stay under 50 ms and every request must succeed. The server
runs with 2 workers. The three slowhttptest attacks run at the same time, each against its own
server with its own probe (they mostly wait: 40 s one after another, ~14 s together; the probes'
medians stay near 1 ms either way); wrk, which keeps both cores busy, runs alone after them.
slowloris and slowread lift the per-client limit
(--max-connections-per-client 0) so that all 500 attack connections, from one address as
slowhttptest sends them, reach the event loops: with the default 256 the server refuses the
rest at accept, which tests the limit (`defaults`), not the event loops under 500 held
connections.
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


def attack(binary, what, cmd_of, args=ARGS, during=None):
    srv = Server(binary, *args)
    srv.get("/man/3/printf")  # cached: the probe measures the server, not man2html
    cmd = cmd_of(srv.port)
    out = []
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    t = threading.Thread(target=lambda: out.append(proc.communicate()[0]))
    t.start()
    time.sleep(3)  # 500 connections at 250 per second
    side = threading.Thread(target=during, args=(srv,)) if during else None
    if side:
        side.start()  # alongside the probe
    lat = probe(srv, 150, 0.05, src="127.0.0.2")
    if side:
        side.join()
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


def slowloris(port):
    return ["slowhttptest", "-H", "-c", "500", "-r", "250", "-i", "2", "-l", "12", "-x", "24",
            "-p", "3", "-u", f"http://127.0.0.1:{port}/"]


def test_slowloris(binary):
    attack(binary, "slowloris", slowloris)


def past_limit(srv):
    """From the attack's address (127.0.0.1): once its 256 connections are held, one more is
    answered 503 with Connection: close and closed. (A slot may be free for a moment while
    slowhttptest replaces a refused connection, so it asks every 0.1 s, for up to 4 s.)"""
    seen = []
    t_end = time.monotonic() + 4
    while time.monotonic() < t_end:
        c = srv.connect()
        c.send("GET /man/3/printf HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        try:
            st, h, _ = c.response()
        except (EOFError, ConnectionResetError) as e:
            st, h = f"no response ({e})", {}
        seen.append(st)
        if st != 200:
            check(st == 503 and h.get("connection") == "close",
                  f"defaults: past the limit: {st}, Connection: {h.get('connection')}, "
                  f"expected 503 close")
            check(c.closed_within(3), "defaults: the connection past the limit was not closed")
            c.close()
            print(f"defaults: one more connection from the attack's address: {st}, "
                  f"Connection: {h.get('connection')} (after {len(seen) - 1} served)")
            return
        c.close()
        time.sleep(0.1)
    check(False, f"defaults: the attack's address was never refused: {seen}")


def test_defaults(binary):
    attack(binary, "slowloris, default limits", slowloris, args=("--threads", "2"),
           during=past_limit)


def test_slowread(binary):
    attack(binary, "slowread", lambda port: [
        "slowhttptest", "-X", "-c", "500", "-r", "250", "-l", "12", "-k", "3", "-n", "1",
        "-w", "512", "-y", "1024", "-z", "32", "-p", "3",
        "-u", f"http://127.0.0.1:{port}/man/5/proc"])


def test_wrk(binary):
    srv = Server(binary, "--threads", "2")
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
    slow = [fn for fn in (test_slowloris, test_slowread, test_defaults)
            if not only or fn.__name__[5:] in only]
    ts = [threading.Thread(target=run_selected, args=((fn,), (), binary)) for fn in slow]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    run_selected((test_wrk,), only, binary)
    return finish()


if __name__ == "__main__":
    sys.exit(main())

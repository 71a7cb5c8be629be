"""soak_webcache.py — the web cache under Zipf load and slowloris at once, for a fixed time.

    python soak_webcache.py BINDIR [--build tm] [--seconds 30] [--max-bytes 1M]
                            [--slow 64] [--interval 2] [--csv FILE] [--json FILE]

The server (BINDIR/webcache-BUILD: tm on tmkit, the environment selecting TMKIT_ALGO, or
lock) runs with 2 workers, a cache of --max-bytes (small: the section-2 pages it serves hold
about 6 MB, so it evicts all the time) and a --request-timeout of 10 s, on a free 127.0.0.1
port. For the whole run:
  - webcache-load: 4 keep-alive connections walking a Zipf (s = 1) list of 100,000 paths drawn
    from the man pages of section 2 (webcache-urls --pages: every one of them renders);
  - a verifying client (its own keep-alive connection, 127.0.0.3): paths drawn from the same
    list; every answer must be 200 with X-Cache HIT or MISS, and a page's body (without
    man2html's `Time:` line) must be the same every time it comes back, cached or rendered
    again after an eviction: a torn, stale or foreign body fails;
  - slowloris (from 127.0.0.2): --slow connections, each sending a request head that never
    ends, one byte every 0.5 s; a connection the server closes is replaced at once;
  - a sampler: the server's VmRSS, descriptors and /_stats every --interval s.
Checks: webcache-load reports no error and no non-2xx answer; the verifier's answers are all
right; every slow connection is answered 408 and closed, none lives past --request-timeout +
3 s; the server serves in every sampling interval (requests grow); descriptors stay under
a bound (the connections the clients hold + what the idle server has + renders in flight,
2 per worker, + 16); in every sample entries <= --max-entries, bytes <= --max-bytes and
evictions never decrease; evictions start in warm-up and grow in every quarter after it;
RSS flat after warm-up (soak_lib.py); at the end, with the load stopped: hits + misses ==
the page requests the clients made, entries == inserts - evictions - expired, the server
answers a page and /_stats, and it exits 0 on SIGTERM.
"""
import argparse
import hashlib
import json
import os
import random
import re
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "webcache"))
sys.path.insert(0, HERE)
import http_harness  # noqa: E402
from http_harness import Conn, Server, mask_time  # noqa: E402
from soak_lib import Failures, Sampler, print_curve, rss_flatness, write_outputs  # noqa: E402

F = Failures("soak.webcache")
REQUEST_TIMEOUT = 10
THREADS = 2
MAX_ENTRIES = 4096


def connect_from(port, src, timeout=15):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


class Slowloris(threading.Thread):
    """n connections from 127.0.0.2, each a head that never ends, one byte per `gap` s."""
    HEAD = b"GET /man/2/read HTTP/1.1\r\nHost: x\r\nX-Slow: "

    def __init__(self, port, n, deadline, gap=0.5):
        super().__init__(daemon=True)
        self.port, self.n, self.deadline, self.gap = port, n, deadline, gap
        self.opened = self.closed = self.got_408 = 0
        self.lifetimes, self.errors, self.other = [], [], []

    def open_one(self):
        s = connect_from(self.port, "127.0.0.2")
        s.setblocking(False)
        self.opened += 1
        return {"s": s, "t": time.monotonic(), "sent": 0, "buf": b""}

    def run(self):
        conns = []
        try:
            conns = [self.open_one() for _ in range(self.n)]
            while time.monotonic() < self.deadline:
                for c in list(conns):
                    # what the server sent: a 408 answer, then the end of the connection
                    try:
                        while True:
                            d = c["s"].recv(4096)
                            if not d:
                                raise ConnectionResetError("EOF")
                            c["buf"] += d
                    except BlockingIOError:
                        pass
                    except (ConnectionResetError, BrokenPipeError):
                        self.finish(c)
                        conns.remove(c)
                        conns.append(self.open_one())
                        continue
                    b = self.HEAD[c["sent"]:c["sent"] + 1] or b"a"
                    try:
                        c["s"].send(b)
                        c["sent"] += 1
                    except BlockingIOError:
                        pass
                    except (ConnectionResetError, BrokenPipeError):
                        pass  # read above next round
                time.sleep(self.gap)
        except OSError as e:
            self.errors.append(f"{type(e).__name__}: {e}")
        finally:
            for c in conns:
                c["s"].close()

    def finish(self, c):
        life = time.monotonic() - c["t"]
        self.closed += 1
        self.lifetimes.append(life)
        if c["buf"].startswith(b"HTTP/1.1 408 "):
            self.got_408 += 1
        else:
            self.other.append(c["buf"][:60])
        c["s"].close()


class Verifier(threading.Thread):
    def __init__(self, port, paths, deadline):
        super().__init__(daemon=True)
        self.port, self.paths, self.deadline = port, paths, deadline
        self.requests, self.hits, self.errors = 0, 0, []
        self.bodies = {}

    def run(self):
        rnd = random.Random(int(time.time()))
        conn = None
        while time.monotonic() < self.deadline and len(self.errors) < 20:
            path = rnd.choice(self.paths)
            try:
                if conn is None:
                    conn = Conn(connect_from(self.port, "127.0.0.3"))
                conn.send(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n")
                st, h, body = conn.response()
            except (OSError, EOFError, ValueError, AssertionError) as e:
                self.errors.append(f"{path}: {type(e).__name__}: {e}")
                conn = None
                continue
            self.requests += 1
            if st != 200 or h.get("x-cache") not in ("HIT", "MISS"):
                self.errors.append(f"{path}: status {st}, X-Cache {h.get('x-cache')}")
            else:
                self.hits += h["x-cache"] == "HIT"
                digest = hashlib.sha256(mask_time(body)).hexdigest()
                first = self.bodies.setdefault(path, digest)
                if digest != first:
                    self.errors.append(f"{path}: body changed ({len(body)} bytes, "
                                       f"X-Cache {h['x-cache']})")
            if h.get("connection") == "close":  # --max-keepalive-requests
                conn.close()
                conn = None
        if conn:
            conn.close()


def stats_of(port):
    c = Conn(connect_from(port, "127.0.0.1"))
    c.send("GET /_stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    st, _, body = c.response()
    c.close()
    if st != 200:
        raise RuntimeError(f"/_stats answered {st}")
    return json.loads(body)


FIELDS = ("requests", "hits", "misses", "entries", "bytes", "evictions", "expired", "inserts",
          "rejected", "renders")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bindir")
    ap.add_argument("--build", default="tm", choices=("tm", "lock"))
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--max-bytes", default="1M")
    ap.add_argument("--slow", type=int, default=64)
    ap.add_argument("--connections", type=int, default=4)
    ap.add_argument("--interval", type=float, default=2)
    ap.add_argument("--csv")
    ap.add_argument("--json")
    a = ap.parse_args()
    a.interval = min(a.interval, a.seconds / 16)  # at least 4 samples in warm-up
    binary = os.path.join(a.bindir, f"webcache-{a.build}")
    summary = {"server": os.path.basename(binary), "algorithm":
               os.environ.get("TMKIT_ALGO", "default") if a.build == "tm" else "none (a lock build)",
               "seconds": a.seconds, "threads": THREADS, "max_bytes": a.max_bytes,
               "slow_connections": a.slow, "load_connections": a.connections}
    # the pages of section 2 (the catalog's first ranks), Zipf s = 1 over them
    cat = subprocess.run([os.path.join(a.bindir, "webcache-urls"), "--catalog"],
                         capture_output=True, text=True, check=True).stdout.split()
    npages = sum(1 for p in cat if p.startswith("/man/2/"))
    F.check(npages >= 50, f"{npages} section-2 pages in the catalog (manpages-dev)")
    tmp = tempfile.mkdtemp(prefix="soak-web-")
    urls = os.path.join(tmp, "urls.txt")
    with open(urls, "w") as f:
        subprocess.run([os.path.join(a.bindir, "webcache-urls"), "--s", "1", "--n", "100000",
                        "--seed", "48", "--pages", str(npages)], stdout=f, check=True)
    paths = open(urls).read().split()
    srv = Server(binary, "--threads", str(THREADS), "--max-bytes", a.max_bytes,
                 "--max-entries", str(MAX_ENTRIES), "--request-timeout", str(REQUEST_TIMEOUT))
    load = slow = ver = sampler = None
    try:
        pid = srv.proc.pid
        check_runtime(pid)
        fds_idle = len(os.listdir(f"/proc/{pid}/fd"))
        fd_bound = fds_idle + a.connections + a.slow + 2 + 2 * THREADS + 16
        sampler = Sampler(pid, a.interval, lambda: {k: stats_of(srv.port)[k] for k in FIELDS},
                          lambda row, rows: check_sample(row, rows, a, fd_bound))
        deadline = sampler.t0 + a.seconds
        load = subprocess.Popen([os.path.join(a.bindir, "webcache-load"), "--url-file", urls,
                                 "--base", f"http://127.0.0.1:{srv.port}", "--connections",
                                 str(a.connections), "--duration", str(a.seconds), "--json"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        slow = Slowloris(srv.port, a.slow, deadline)
        ver = Verifier(srv.port, paths, deadline)
        sampler.start()
        slow.start()
        ver.start()
        out, err = load.communicate(timeout=a.seconds + 120)
        for t in (ver, slow):
            t.join(max(1.0, deadline - time.monotonic() + 60))
            F.check(not t.is_alive(), f"{type(t).__name__} still running 60 s after the end")
        sampler.stop()
        time.sleep(0.3)
        res = json.loads(out or "{}")
        F.check(load.returncode == 0, f"webcache-load exit {load.returncode}: {err[-300:]}")
        F.check(res.get("errors") == 0 and res.get("non2xx") == 0,
                f"webcache-load: errors {res.get('errors')}, non2xx {res.get('non2xx')} ({res})")
        end = sampler.sample()
        if F.check("requests" in end, f"the server answers /_stats at the end ({sampler.errors[-1:]})"):
            final_checks(srv, end, res, ver, slow, sampler, a, fd_bound, fds_idle)
        summarize(summary, sampler, res, ver, slow, a)
    except (OSError, RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
        F.check(False, f"{type(e).__name__}: {e}")  # the server died, a socket or /proc failed
    finally:
        if load and load.poll() is None:
            load.kill()
            load.wait()
        if srv.proc.poll() is None:
            srv.stop("webcache soak server")
        for f in http_harness.failures:  # the harness's checks (the SIGTERM exit status)
            F.check(False, f)
        shutil.rmtree(tmp, ignore_errors=True)
    write_outputs(sampler.rows if sampler else [], summary, a.csv, a.json)
    F.exit()


def check_runtime(pid):
    """WC_EXPECT_LIBITM=DIR: the server mapped its libitm.so.1 from DIR (tmkit's build/lib)."""
    want = os.environ.get("WC_EXPECT_LIBITM")
    if not want:
        return
    with open(f"/proc/{pid}/maps") as f:
        paths = {ln.split()[-1] for ln in f if "libitm.so" in ln}
    F.check(any(os.path.realpath(p).startswith(os.path.realpath(want) + "/") for p in paths),
            f"server runs on {paths or 'no libitm'}, wanted one from {want}")


def check_sample(row, rows, a, fd_bound):
    if "requests" not in row:
        return
    t = row["t"]
    F.check(row["entries"] <= MAX_ENTRIES, f"t={t}: entries {row['entries']} > {MAX_ENTRIES}")
    F.check(row["bytes"] <= parse_size(a.max_bytes),
            f"t={t}: bytes {row['bytes']} > --max-bytes {a.max_bytes}")
    F.check(row["fds"] <= fd_bound, f"t={t}: {row['fds']} descriptors open, bound {fd_bound}")
    prev = [r for r in rows[:-1] if "requests" in r]
    if prev:
        p = prev[-1]
        F.check(row["evictions"] >= p["evictions"],
                f"t={t}: evictions went down ({p['evictions']} -> {row['evictions']})")
        F.check(row["requests"] > p["requests"] + 1,  # + 1: the sampler's own /_stats
                f"t={t}: no request served since t={p['t']} ({p['requests']} -> "
                f"{row['requests']})")


def parse_size(s):
    m = re.fullmatch(r"(\d+)([KMG]?)", s)
    return int(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2)]


def final_checks(srv, end, res, ver, slow, sampler, a, fd_bound, fds_idle):
    F.eq(ver.errors[:5], [], f"verifying client's errors ({len(ver.errors)} in all)")
    F.check(ver.requests > 0 and ver.hits > 0, f"the verifier was served ({ver.requests} "
            f"requests, {ver.hits} hits)")
    F.eq(slow.errors, [], "slowloris client errors")
    F.check(slow.closed > 0, f"the server closed slow connections ({slow.closed} of "
            f"{slow.opened})")
    F.eq(slow.closed - slow.got_408, 0, f"slow connections closed without a 408 answer "
         f"(first bytes: {slow.other[:3]})")
    longest = max(slow.lifetimes, default=0)
    F.check(longest <= REQUEST_TIMEOUT + 3, f"a slow connection lived {longest:.1f} s "
            f"(--request-timeout {REQUEST_TIMEOUT})")
    page_requests = res.get("total_responses", 0) + ver.requests
    F.eq(end["hits"] + end["misses"], page_requests,
         "at the end: hits + misses == the clients' page requests")
    F.eq(end["entries"], end["inserts"] - end["evictions"] - end["expired"],
         "at the end: entries == inserts - evictions - expired")
    F.check(end["fds"] <= fds_idle + 4, f"at the end: {end['fds']} descriptors open "
            f"({fds_idle} when idle at the start): the closed connections are released")
    rows = [r for r in sampler.rows if "evictions" in r]
    warm = a.seconds * 0.25
    F.check(any(r["evictions"] > 0 for r in rows if r["t"] <= warm),
            "evictions start during warm-up")
    q = (a.seconds - warm) / 4
    for i in range(4):
        seg = [r["evictions"] for r in rows if warm + i * q < r["t"] <= warm + (i + 1) * q + 0.01]
        prev = [r["evictions"] for r in rows if r["t"] <= warm + i * q]
        if seg and prev:
            F.check(seg[-1] > prev[-1], f"evictions grow in quarter {i + 1} after warm-up "
                    f"({prev[-1]} -> {seg[-1]})")
    st, _, body = srv.get("/man/2/read")
    F.check(st == 200 and b"read" in body, f"the server serves a page after the soak ({st})")
    for e in sampler.errors:
        F.check(False, f"sampler: {e}")


def summarize(summary, sampler, res, ver, slow, a):
    rows = sampler.rows
    flat = rss_flatness(rows, a.seconds)
    F.check(flat["ok"], f"RSS after warm-up: {flat}")
    end = rows[-1]
    life = sorted(slow.lifetimes)
    summary.update({
        "rss": flat, "samples": len(rows),
        "load": {k: res.get(k) for k in ("requests", "rps", "mean_ms", "p99_ms", "max_ms",
                                         "errors", "non2xx", "total_responses")},
        "verifier": {"requests": ver.requests, "hits": ver.hits, "errors": len(ver.errors),
                     "pages_seen": len(ver.bodies)},
        "slowloris": {"opened": slow.opened, "closed_by_server": slow.closed,
                      "answered_408": slow.got_408,
                      "lifetime_s_min": round(life[0], 2) if life else None,
                      "lifetime_s_max": round(life[-1], 2) if life else None},
        "counters": {k: end.get(k) for k in FIELDS},
        "hit_rate": round(end.get("hits", 0) / max(1, end.get("hits", 0) + end.get("misses", 0)), 3),
        "fds_max": max(r["fds"] for r in rows), "threads_max": max(r["threads"] for r in rows),
    })
    print_curve(rows)
    print(f"RSS: {flat}")
    print(f"load: {summary['load']}; verifier: {summary['verifier']}")
    print(f"slowloris: {summary['slowloris']}; server: {summary['counters']}; "
          f"descriptors max {summary['fds_max']}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""HTTP tests of one webcache build (Python 3 standard library only).

usage: test_http.py http BINARY --ref NOCACHE_BINARY   the protocol and cache suite
       test_http.py cli BINARY                          flag parsing (exit 2, --help)

The server is started with --port 0 and the port read from its one startup line. Environment
(set by ctest): TMKIT_ALGO / LD_LIBRARY_PATH pass through to the server; EXPECT_LIBITM=DIR
checks that the libitm.so.1 mapped by the tm build comes from DIR; TM_STATS=1 runs the main
server with TMKIT_STATS=<file> and checks that no transaction went serial-irrevocable.
The timeout, expiry and --procs tests, which mostly wait (timeouts and sleeps), run beside the
main server's tests, each on a server of its own; the timeout test's three connections wait
out their timeouts at once.
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_harness import (LINK_HOST, Server, check, expect_error, failures, finish,  # noqa: E402
                          guarded, mask_time)

PAGES = ["3/printf", "3/malloc", "3/strlen", "3/memcpy", "3/pthread_create", "3/fopen",
         "3/qsort", "3/strtol", "3/queue", "3/errno", "3/CIRCLEQ_EMPTY", "2/open", "2/read",
         "2/write", "2/fork", "2/mmap", "7/signal", "7/pipe", "7/socket", "7/tcp"]


def test_basics(srv, caching):
    st, h, body = srv.get("/man/3/printf")
    check(st == 200, f"GET printf: {st}")
    for k in ("date", "content-length", "content-type", "connection", "cache-control", "x-cache"):
        check(k in h, f"GET: header {k} missing")
    check(h.get("content-type", "").startswith("text/html"), "content type")
    check(h.get("cache-control") == "max-age=3600", f"cache-control {h.get('cache-control')}")
    check(body.startswith(b"<!DOCTYPE"), "CGI header not stripped")
    check(b"Man page of printf" in body, "not the printf page")
    check(f"http://{LINK_HOST}/man/3+".encode() in body, "links do not point back to /man")
    st2, h2, b2 = srv.get("/man/3/printf", "HEAD")
    check(st2 == 200 and h2.get("content-length") == str(len(body)) and b2 == b"", "HEAD")
    check(h2.get("x-cache") == ("HIT" if caching else "MISS"), f"HEAD X-Cache {h2.get('x-cache')}")
    # man2html's own links use /man/<section>+<name>; they work too.
    st3, _, b3 = srv.get("/man/3+printf")
    check(st3 == 200 and mask_time(b3) == mask_time(body), "/man/3+printf")
    check(srv.get("/man/7/queue")[0] == 200, ".so page in section 7")
    check(b"Man page of queue" in srv.get("/man/3/queue")[2], ".so redirect not followed")
    check(srv.get("/man/3/CIRCLEQ_EMPTY")[0] == 200, "symlinked page")
    for path in ("/man/3/no_such_page_xyz", "/man/3/..", "/man/3/a%2Fb", "/man/x/printf",
                 "/man/3/", "/nothing", "/man/3/.hidden"):
        check(srv.get(path)[0] == 404, f"{path}: expected 404")
    check(srv.get("/")[0] == 200, "index page")


def test_connection(srv):
    c = srv.connect()
    for i in range(5):  # keep-alive
        c.send(f"GET /man/{PAGES[i]} HTTP/1.1\r\nHost: x\r\n\r\n")
        st, h, body = c.response()
        check(st == 200 and h.get("connection") == "keep-alive", f"keep-alive request {i}")
    # Pipelining: three requests in one write, answered in order (one HEAD in the middle).
    c.send("GET /man/2/fork HTTP/1.1\r\nHost: x\r\n\r\n"
           "HEAD /man/2/mmap HTTP/1.1\r\nHost: x\r\n\r\n"
           "GET /man/7/pipe HTTP/1.1\r\nHost: x\r\n\r\n")
    r1, r2, r3 = c.response(), c.response(head=True), c.response()
    check(b"Man page of fork" in r1[2] and r2[0] == 200 and r2[2] == b"" and
          b"Man page of pipe" in r3[2], "pipelined responses out of order or wrong")
    # A GET with a small body: the body is skipped, the pipelined request after it answered.
    c.send("GET /_stats HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
           "GET /man/3/strlen HTTP/1.1\r\nHost: x\r\n\r\n")
    check(c.response()[0] == 200 and b"strlen" in c.response()[2], "GET with body + pipeline")
    # HTTP/1.0: closes unless asked to keep alive.
    c.send("GET /man/3/printf HTTP/1.0\r\n\r\n")
    st, h, _ = c.response()
    check(st == 200 and h.get("connection") == "close" and c.closed_within(5), "HTTP/1.0 close")
    c.close()
    c = srv.connect()
    c.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n"
           "Connection: close\r\n\r\n")
    check(c.response()[1].get("connection") == "keep-alive", "HTTP/1.0 keep-alive")
    check(c.response()[1].get("connection") == "close" and c.closed_within(5), "Connection: close")
    c.close()


def test_errors(srv):
    expect_error(srv, "HELLO\r\n\r\n", 400, True, "garbage")
    expect_error(srv, "GET /x HTTP/1.1\r\n\r\n", 400, True, "HTTP/1.1 without Host")
    expect_error(srv, "GET /x HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", 400, True, "bad header")
    expect_error(srv, "GET /x HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400, True, "folding")
    expect_error(srv, "GET /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n", 400, True,
                 "bad Content-Length")
    expect_error(srv, "GET /" + "a" * 10000 + " HTTP/1.1\r\nHost: x\r\n\r\n", 414, True, "long URI")
    expect_error(srv, "GET /" + "a" * 300000, 414, True, "endless URI")
    expect_error(srv, "GET / HTTP/1.1\r\nHost: x\r\n" + "X-Big: " + "b" * 20000 + "\r\n\r\n",
                 431, True, "huge header")
    expect_error(srv, "GET / HTTP/1.1\r\nHost: x\r\n" + "X-A: b\r\n" * 3000 + "\r\n", 431, True,
                 "many headers")
    expect_error(srv, "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n", 413,
                 True, "large body")
    expect_error(srv, "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501,
                 True, "unknown transfer coding")
    expect_error(srv, "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505, True, "HTTP/2.0")
    expect_error(srv, "GET / HTTP/1.1\r\nHost: x\r\n\r\n".replace("1.1", "x.y"), 400, True,
                 "bad version")
    expect_error(srv, "POST /man/3/printf HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc",
                 405, False, "POST")
    expect_error(srv, "DELETE / HTTP/1.1\r\nHost: x\r\n\r\n", 405, False, "DELETE")
    expect_error(srv, "BREW / HTTP/1.1\r\nHost: x\r\n\r\n", 501, False, "unknown method")
    c = srv.connect()
    c.send("POST / HTTP/1.1\r\nHost: x\r\n\r\n")
    check(c.response()[1].get("allow") == "GET, HEAD", "405 without Allow")
    c.close()
    check(srv.get("/_stats")[0] == 200, "server unwell after the error tests")


def test_timeouts(binary):
    srv = Server(binary, "--keepalive-timeout", "0.5", "--request-timeout", "1")

    def keepalive():
        c = srv.connect()
        c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        c.response()
        t = time.monotonic()
        check(c.closed_within(5), "idle keep-alive connection not closed")
        check(0.3 < time.monotonic() - t < 3, f"keep-alive timeout took {time.monotonic() - t:.2f}s")
        c.close()

    def incomplete():
        c = srv.connect()
        c.send("GET / HTTP/1.1\r\nHost")  # never finished
        t = time.monotonic()
        st, h, _ = c.response()
        check(st == 408 and c.closed_within(5), f"incomplete request: {st}")
        check(0.7 < time.monotonic() - t < 4, f"request timeout took {time.monotonic() - t:.2f}s")
        c.close()

    def silent():
        c = srv.connect()  # a silent client: closed without an answer after the request timeout
        check(c.closed_within(5) and c.buf == b"", "silent connection not closed")
        c.close()

    # the three connections wait out their timeouts at once, each on its own connection
    ts = [threading.Thread(target=guarded, args=(fn,)) for fn in (keepalive, incomplete, silent)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    idle = srv.connect()  # shutdown does not wait for idle connections
    t = time.monotonic()
    srv.stop("timeouts server")
    check(time.monotonic() - t < 3, "SIGTERM waited for an idle connection")
    idle.close()


def test_cache_identity(srv, ref, caching):
    """Cached bodies are byte-identical to the first (rendered) response, and equal to the
    nocache build's rendering up to man2html's timestamp line."""
    for p in PAGES:
        st1, h1, b1 = srv.get("/man/" + p)
        st2, h2, b2 = srv.get("/man/" + p)
        check(st1 == 200 and st2 == 200, f"{p}: status {st1} {st2}")
        if caching:
            check(h2.get("x-cache") == "HIT", f"{p}: second request X-Cache {h2.get('x-cache')}")
            check(b1 == b2, f"{p}: cached body differs from the rendered one")
        else:
            check(h2.get("x-cache") == "MISS", f"{p}: nocache said {h2.get('x-cache')}")
        _, _, rb = ref.get("/man/" + p)
        check(mask_time(rb) == mask_time(b2), f"{p}: body differs from the nocache build's")
    s = srv.stats()
    for k in ("requests", "hits", "misses", "entries", "bytes", "evictions", "expired", "policy"):
        check(k in s, f"/_stats: {k} missing")
    if caching:
        check(s["hits"] >= len(PAGES) and s["entries"] >= len(PAGES) - 2, f"/_stats: {s}")
        check(s["bytes"] > 0 and s["policy"] == "gdsf", f"/_stats: {s}")
    else:
        check(s["hits"] == 0 and s["misses"] >= 2 * len(PAGES) and s["policy"] == "none",
              f"/_stats nocache: {s}")


def test_limits_and_expiry(binary):
    srv = Server(binary, "--max-entries", "3", "--max-age", "1", "--policy", "lru")
    for p in PAGES[:5]:
        srv.get("/man/" + p)
    s = srv.stats()
    check(s["entries"] == 3 and s["evictions"] == 2 and s["policy"] == "lru", f"limits: {s}")
    check(srv.get("/man/" + PAGES[4])[1].get("x-cache") == "HIT", "recent page not cached")
    check(srv.get("/man/" + PAGES[4])[1].get("cache-control") == "max-age=1", "max-age flag")
    time.sleep(1.1)
    check(srv.get("/man/" + PAGES[4])[1].get("x-cache") == "MISS", "stale page served")
    check(srv.stats()["expired"] >= 1, "expiry not counted")
    srv.stop("limits server")
    srv = Server(binary, "--max-age", "0")  # backend says no-store: nothing cached
    srv.get("/man/3/printf")
    check(srv.get("/man/3/printf")[1].get("x-cache") == "MISS", "no-store page cached")
    check(srv.stats()["entries"] == 0, "no-store page in the cache")
    srv.stop("no-store server")
    srv = Server(binary, "--max-bytes", "64K", "--max-object-size", "16K")
    srv.get("/man/3/printf")  # ~32 KB: too big to cache
    check(srv.get("/man/3/printf")[1].get("x-cache") == "MISS", "oversized page cached")
    srv.stop("max-object-size server")


def test_procs(binary):
    srv = Server(binary, "--procs", "2", "--threads", "2")
    conns = [srv.connect() for _ in range(6)]
    for i, c in enumerate(conns):
        # (close: a worker serves one connection at a time, keep-alive would hold it 5 s)
        c.send(f"GET /man/{PAGES[i]} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    check(all(c.response()[0] == 200 for c in conns), "--procs 2: requests failed")
    for c in conns:
        c.close()
    time.sleep(0.3)  # the other process publishes its counters every 100 ms
    s = srv.stats()
    check(s["procs"] == 2 and len(s["processes"]) == 2, f"--procs 2 stats: {s}")
    check(s["requests"] >= 7 and len({p["pid"] for p in s["processes"]}) == 2, f"stats: {s}")
    srv.stop("--procs 2 server")


def runtime_check(srv):
    want = os.environ.get("EXPECT_LIBITM")
    if not want:
        return
    maps = open(f"/proc/{srv.proc.pid}/maps").read()
    libs = {ln.split()[-1] for ln in maps.splitlines() if "libitm.so" in ln}
    check(len(libs) == 1 and os.path.realpath(os.path.dirname(libs.pop())) ==
          os.path.realpath(want), f"libitm mapped from {libs}, expected {want}")


def tm_stats_check(path):
    if not os.path.exists(path):
        check(False, f"no TMKIT_STATS profile at {path}")
        return
    prof = json.load(open(path))
    commits = sum(s["commits"] for s in prof["sites"])
    irrev = [(s["site_offset"], s["irrevocable_switches"], s.get("irrevocable_call_offset"))
             for s in prof["sites"] if s["irrevocable_switches"]]
    check(commits > 0, "TMKIT_STATS: no transaction committed")
    check(not irrev, f"TMKIT_STATS ({prof['algorithm']}): transactions went serial: {irrev}")


def main():
    mode, binary = sys.argv[1], sys.argv[2]
    if mode == "cli":
        return cli(binary)
    ref = sys.argv[sys.argv.index("--ref") + 1]
    caching = "nocache" not in os.path.basename(binary)
    env = os.environ.copy()
    statsfile = None
    if os.environ.get("TM_STATS") == "1":
        statsdir = tempfile.mkdtemp(prefix="webcache-tmstats-")
        statsfile = os.path.join(statsdir, "profile.json")
        env["TMKIT_STATS"] = statsfile
    # the waiting tests, each with its own server, beside the main server's (an exception in
    # one is a failure, as guarded() records it)
    side = [threading.Thread(target=guarded, args=(fn, binary))
            for fn in (test_timeouts, test_limits_and_expiry if caching else None, test_procs) if fn]
    for t in side:
        t.start()
    srv = Server(binary, "--threads", "4", env=env)
    refenv = {k: v for k, v in os.environ.items() if not k.startswith(("TMKIT", "LD_"))}
    ref_srv = Server(ref, env=refenv)
    runtime_check(srv)
    test_basics(srv, caching)
    test_connection(srv)
    test_errors(srv)
    test_cache_identity(srv, ref_srv, caching)
    ref_srv.stop("reference server")
    srv.stop()
    if statsfile:
        tm_stats_check(statsfile)
        if os.path.exists(statsfile):
            os.unlink(statsfile)
        os.rmdir(statsdir)
    for t in side:
        t.join()
    return finish()


def cli(binary):
    bad = [["--port", "70000"], ["--port", "-1"], ["--port"], ["--threads", "0"],
           ["-t", "2x"], ["--procs", "65"], ["--policy", "fifo"], ["--bogus"], ["extra"],
           ["--max-bytes", "12Q"], ["--max-bytes", "0"], ["--keepalive-timeout", "-1"],
           ["--keepalive-timeout", "1.2345"], ["--request-timeout", "0"],
           ["--max-object-size", "2M", "--max-bytes", "1M"], ["--bind", "1.2.3"],
           ["--verbose=1"], ["--max-entries", "99999999999999999999999"], ["--bind", ""]]
    for args in bad:
        r = subprocess.run([binary, *args], capture_output=True, text=True, timeout=10)
        check(r.returncode == 2, f"{args}: exit {r.returncode}, expected 2")
        check(r.stderr.startswith("webcache: ") and r.stdout == "", f"{args}: message {r.stderr!r}")
    r = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=10)
    check(r.returncode == 0, "--help exit status")
    for flag in ("--procs", "--threads", "--bind", "--port", "--policy", "--max-entries",
                 "--max-bytes", "--max-object-size", "--max-age", "--keepalive-timeout",
                 "--request-timeout", "--max-request-line", "--max-header-bytes", "--max-body",
                 "--man-dir", "--man2html", "--link-host", "--verbose", "--help"):
        check(flag in r.stdout, f"--help does not mention {flag}")
    srv = Server(binary, "--port=0", "-t", "1", "--max-bytes=1M", "--keepalive-timeout=0.25")
    check(srv.get("/")[0] == 200, "server with = flags")
    srv.stop()
    s = socket.socket()  # a taken port: clear error, exit 1
    s.bind(("127.0.0.1", 0))
    s.listen()
    r = subprocess.run([binary, "--port", str(s.getsockname()[1])], capture_output=True,
                       text=True, timeout=10)
    check(r.returncode == 1 and "cannot listen" in r.stderr, f"busy port: {r.returncode}")
    s.close()
    if failures:
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

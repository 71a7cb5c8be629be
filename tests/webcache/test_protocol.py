#!/usr/bin/env python3
"""HTTP/1.1 conformance and robustness tests of one webcache build (issue 24, items 1, 4, 5, 6, 8).

usage: test_protocol.py BINARY

Raw sockets against a server on a free loopback port: malformed percent-escapes, limits that
must not depend on how TCP splits the request, /_stats with 64 processes, and the RFC 9110/9112
points (absolute-form, OPTIONS * and CONNECT, empty lines before a request, Host values, '#',
Expect: 100-continue, chunked request bodies, a short body, man2html's stderr, the README's
flag table). The cache synchronization plays no part, so one build is enough.
"""
import os
import re
import socket
import stat
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_harness import Server, check, expect_error, finish, guarded, run_concurrently  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
README = os.path.join(HERE, "..", "..", "apps", "webcache", "README.md")


def status_of(srv, raw):
    """The status of the first response to raw bytes on a fresh connection (0: none)."""
    c = srv.connect()
    c.send(raw)
    try:
        return c.response()[0]
    except (EOFError, ConnectionResetError, OSError):
        return 0
    finally:
        c.close()


def test_percent(srv):  # item 1 (and 8): malformed escapes are 400, bounded, never a crash
    for t in ("/man/3/printf%", "/man/3/printf%4", "/x%4", "/man/3/a%+5", "/man/3/a%-1",
              "/man/3/a%zz", "/man/3/a%4g", "/%"):
        expect_error(srv, f"GET {t} HTTP/1.1\r\nHost: x\r\n\r\n", 400, False, f"escape {t}")
    check(status_of(srv, "GET /man/3/print%66 HTTP/1.1\r\nHost: x\r\n\r\n") == 200,
          "a valid escape (%66) not decoded")
    check(status_of(srv, "GET /man/3/a%2Fb HTTP/1.1\r\nHost: x\r\n\r\n") == 404, "%2F: not 404")


def split_statuses(srv, raw, batch=8):
    """Statuses of raw sent whole and split in two at every byte boundary (the second part
    sent 30 ms after the first, so the server reads it separately)."""
    out = {}
    cuts = list(range(1, len(raw)))
    for i in range(0, len(cuts), batch):
        conns = []
        for cut in cuts[i:i + batch]:
            c = srv.connect()
            c.send(raw[:cut])
            conns.append((cut, c))
        time.sleep(0.03)
        for cut, c in conns:
            c.send(raw[cut:])
        for cut, c in conns:
            try:
                out[cut] = c.response()[0]
            except (EOFError, ConnectionResetError, OSError):
                out[cut] = 0
            c.close()
    return status_of(srv, raw), out


def test_segmentation(binary):  # item 5: a limit is exact, however the request is split
    srv = Server(binary, "--max-request-line", "64", "--max-header-bytes", "64")
    # The request line without its CRLF is 64 bytes; then one past.
    line = "GET /?" + "a" * (64 - len("GET /? HTTP/1.1")) + " HTTP/1.1"
    assert len(line) == 64
    hdr = "Host: x\r\nX-Pad: " + "p" * (64 - len("Host: x\r\nX-Pad: \r\n")) + "\r\n"
    assert len(hdr) == 64
    cases = [(line + "\r\n" + "Host: x\r\n\r\n", 200, "request line at the limit"),
             (line.replace("?", "?b", 1) + "\r\nHost: x\r\n\r\n", 414, "request line over"),
             ("GET / HTTP/1.1\r\n" + hdr + "\r\n", 200, "headers at the limit"),
             ("GET / HTTP/1.1\r\n" + hdr.replace("pp", "ppp", 1) + "\r\n", 431, "headers over"),
             ("GET / HTTP/1.1\n" + hdr.replace("\r\n", "\n") + "\n", 200, "LF-only at the limit")]
    for raw, want, what in cases:
        whole, splits = split_statuses(srv, raw.encode())
        check(whole == want, f"{what}: whole request {whole}, expected {want}")
        bad = {cut: st for cut, st in splits.items() if st != want}
        check(not bad, f"{what}: split at {sorted(bad)[:8]} answered {sorted(set(bad.values()))}")
    srv.stop("segmentation server")


def test_stats_64(binary):  # item 6
    srv = Server(binary, "--procs", "64", "--threads", "1")
    st, h, body = srv.get("/_stats")
    check(st == 200, f"/_stats with --procs 64: {st}")
    if st == 200:
        import json
        s = json.loads(body)
        check(len(s["processes"]) == 64, f"/_stats: {len(s['processes'])} processes")
    srv.stop("--procs 64 server")


def test_target_forms(srv):  # item 8
    for t, want in (("http://x/man/3/printf", 200), ("HTTP://X:80/_stats", 200),
                    ("http://x", 200), ("http://x?q=1", 200), ("https://x/", 200),
                    ("ftp://x/", 400), ("http:///x", 400), ("http://a b/", 400), ("*", 400),
                    ("x.test:443", 400), ("/man/3/printf#frag", 400), ("/#", 400)):
        got = status_of(srv, f"GET {t} HTTP/1.1\r\nHost: x\r\n\r\n")
        check(got == want, f"GET {t}: {got}, expected {want}")
    st, h, body = srv.get("http://x/man/3/printf")
    check(st == 200 and b"Man page of printf" in body, "absolute-form: not the page")
    for raw in ("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
                "CONNECT x.test:443 HTTP/1.1\r\nHost: x.test:443\r\n\r\n",
                "OPTIONS /man/3/printf HTTP/1.1\r\nHost: x\r\n\r\n"):
        expect_error(srv, raw, 405, False, raw.split("\r\n")[0])
        c = srv.connect()
        c.send(raw)
        check(c.response()[1].get("allow") == "GET, HEAD", f"{raw.split()[0]}: no Allow")
        c.close()


def test_empty_lines(srv):  # item 8: CRLF before a request line is ignored
    for pre in ("\r\n", "\n", "\r\n\r\n"):
        check(status_of(srv, pre + "GET / HTTP/1.1\r\nHost: x\r\n\r\n") == 200,
              f"{pre!r} before the request line")
    c = srv.connect()  # after a request with a body, a client's extra CRLF
    c.send("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab\r\n")
    check(c.response()[0] == 200, "body + CRLF: first")
    c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    check(c.response()[0] == 200, "body + CRLF: second")
    c.close()
    # a flood of empty lines does not fill the buffer: it is dropped as it comes
    check(status_of(srv, "\r\n" * 20000 + "GET / HTTP/1.1\r\nHost: x\r\n\r\n") == 200,
          "many empty lines before the request line")


def test_host(srv):  # item 8
    for v in ("a b", "x/y", "x:8o", "x@y", "[::1", "x\\y", "x:80:80", "%zz"):
        expect_error(srv, f"GET / HTTP/1.1\r\nHost: {v}\r\n\r\n", 400, True, f"Host: {v}")
    for v in ("x", "x.test:8080", "[::1]:80", "127.0.0.1", "", "a-b_c~d.e", "x:", "%41"):
        check(status_of(srv, f"GET / HTTP/1.1\r\nHost: {v}\r\n\r\n") == 200, f"Host: {v}")
    expect_error(srv, "GET / HTTP/1.1\r\nHost: x\r\nHost: x\r\n\r\n", 400, True, "two Hosts")
    expect_error(srv, "GET / HTTP/1.1\r\n\r\n", 400, True, "no Host")
    check(status_of(srv, "GET / HTTP/1.0\r\n\r\n") == 200, "HTTP/1.0 without Host")


def read_raw(c, n_or_marker, timeout=5):
    c.s.settimeout(timeout)
    while n_or_marker not in c.buf:
        c._fill()
    i = c.buf.index(n_or_marker) + len(n_or_marker)
    out, c.buf = c.buf[:i], c.buf[i:]
    return out


def test_expect(srv):  # item 8
    c = srv.connect()
    c.send("GET /_stats HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
    try:
        interim = read_raw(c, b"\r\n\r\n", timeout=3)
    except (socket.timeout, TimeoutError, EOFError):
        interim = b""
    check(interim == b"HTTP/1.1 100 Continue\r\n\r\n", f"Expect: 100-continue: got {interim!r}")
    c.send("hello")
    c.s.settimeout(5)
    check(c.response()[0] == 200, "Expect: 100-continue: final status")
    c.close()
    expect_error(srv, "GET / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                 "Content-Length: 100000000\r\n\r\n", 413, True, "Expect + too large")
    expect_error(srv, "GET / HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\n\r\n", 417, True,
                 "Expect: teapot")
    expect_error(srv, "POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                 "Content-Length: 3\r\n\r\nabc", 405, False, "POST + Expect")


def test_chunked(srv):  # item 8: chunked bodies are decoded (and discarded)
    body = "5\r\nhello\r\n1a;name=val;x\r\n" + "z" * 26 + "\r\n0\r\nX-Trailer: 1\r\n\r\n"
    nxt = "GET /_stats HTTP/1.1\r\nHost: x\r\n\r\n"
    c = srv.connect()
    c.send("GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + body + nxt)
    check(c.response()[0] == 200 and c.response()[0] == 200, "chunked GET + pipelined request")
    c.send("GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
    for i in range(0, len(body), 3):  # the body in pieces
        c.send(body[i:i + 3])
        time.sleep(0.002)
    c.send(nxt)
    check(c.response()[0] == 200 and c.response()[0] == 200, "chunked body in pieces")
    c.close()
    expect_error(srv, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                 "3\r\nabc\r\n0\r\n\r\n", 405, False, "chunked POST")
    head = "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    for b, st, what in (("x\r\n", 400, "bad chunk size"), ("5\r\nhelloXX", 400, "no CRLF after data"),
                        ("5\nhello\r\n0\r\n\r\n", 400, "bare LF after size"),
                        ("ffffffffffffffffffff\r\n", 413, "huge chunk"),
                        ("10001\r\n", 413, "chunks over --max-body"),
                        ("0\r\nX: \x01\r\n\r\n", 400, "control character in a trailer")):
        expect_error(srv, head + b, st, True, what)
    for te, st in (("gzip", 501), ("gzip, chunked", 501), ("chunked, gzip", 400),
                   ("chunked, chunked", 400)):
        expect_error(srv, f"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: {te}\r\n\r\n"
                     "0\r\n\r\n", st, True, f"Transfer-Encoding: {te}")
    expect_error(srv, "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                 "Content-Length: 5\r\n\r\n0\r\n\r\n", 400, True, "Transfer-Encoding + Content-Length")
    expect_error(srv, "GET / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, True,
                 "Transfer-Encoding in HTTP/1.0")


def test_short_body(binary):  # item 8: 408 when the body stops short
    srv = Server(binary, "--request-timeout", "1")
    for raw in ("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc",
                "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab"):
        c = srv.connect()
        c.send(raw)
        t = time.monotonic()
        try:
            st, h, _ = c.response()
        except (EOFError, ConnectionResetError):
            st, h = 0, {}
        check(st == 408 and h.get("connection") == "close", f"short body: {st}, expected 408")
        check(0.5 < time.monotonic() - t < 4, f"short body: 408 after {time.monotonic() - t:.1f}s")
        check(c.closed_within(5), "short body: connection not closed")
        c.close()
    srv.stop("short-body server")


def test_shutdown(binary):  # item 4: SIGTERM is bounded by --shutdown-timeout
    """A client pipelines 60 copies of a 200 KB page and reads nothing, so a worker is stuck
    sending; another client is connected and idle. SIGTERM must end the server about
    --shutdown-timeout later (before: the send's own timeout, 30 s here), exit 0; and a second
    signal must end it at once."""
    import signal as sig
    for second in (False, True):
        srv = Server(binary, "--request-timeout", "30", "--threads", "2",
                     "--max-keepalive-requests", "0",
                     "--shutdown-timeout", "30" if second else "1")
        stuck = srv.connect()
        stuck.send("GET /man/5/proc HTTP/1.1\r\nHost: x\r\n\r\n" * 60)
        idle = srv.connect()
        time.sleep(1)
        t0 = time.monotonic()
        srv.proc.send_signal(sig.SIGTERM)
        if second:
            time.sleep(0.5)
            srv.proc.send_signal(sig.SIGTERM)
        try:
            rc = srv.proc.wait(timeout=15)
        except Exception:  # noqa: BLE001
            srv.proc.kill()
            rc = "hung"
        took = time.monotonic() - t0
        stuck.close()
        idle.close()
        if second:
            check(rc == 1 and took < 3, f"shutdown: a second SIGTERM took {took:.1f}s, exit {rc}")
        else:
            check(rc == 0 and 0.8 < took < 4, f"shutdown: SIGTERM took {took:.1f}s (bound 1 s), "
                  f"exit {rc}")


def test_man2html_stderr(binary):  # item 8: man2html's noise stays out of our stderr
    d = tempfile.mkdtemp(prefix="webcache-noisy-")
    noisy = os.path.join(d, "man2html")
    with open(noisy, "w") as f:
        f.write("#!/bin/sh\necho 'man2html: noise on stderr' >&2\nexec /usr/bin/man2html \"$@\"\n")
    os.chmod(noisy, stat.S_IRWXU)
    srv = Server(binary, "--man2html", noisy)
    check(srv.get("/man/3/strlen")[0] == 200, "noisy man2html: page not served")
    err = srv.stop("noisy-man2html server")
    check("noise" not in err, f"man2html's stderr reached the server's: {err[:200]!r}")
    os.unlink(noisy)
    os.rmdir(d)


def test_readme_flags(binary):  # item 8: every flag of --help is in the README's flag table
    import subprocess
    helptext = subprocess.run([binary, "--help"], capture_output=True, text=True,
                              timeout=10).stdout
    flags = set(re.findall(r"--[a-z][a-z0-9-]+", helptext))
    table = "\n".join(ln for ln in open(README).read().splitlines() if ln.startswith("| `-"))
    missing = sorted(f for f in flags if f"`{f}" not in table and f", {f}" not in table)
    check(not missing, f"README flag table lacks {missing}")


def main():
    binary = sys.argv[1]
    # The light tests with a server of their own (test_short_body waits out two 1-s request
    # timeouts) run beside the main server's. test_shutdown runs after the others in this
    # thread, as before: it needs a worker stuck sending after a second, which the CPU-heavy
    # tests beside it (the nocache ASan build renders each page) can delay.
    side = threading.Thread(target=run_concurrently, args=(
        (test_short_body, test_man2html_stderr, test_readme_flags), [], binary))
    side.start()
    srv = Server(binary, "--threads", "8")
    for fn in (test_percent, test_target_forms, test_empty_lines, test_host, test_expect,
               test_chunked):
        guarded(fn, srv)
    check(srv.get("/_stats")[0] == 200, "server unwell after the protocol tests")
    srv.stop()
    for fn in (test_segmentation, test_stats_64):
        guarded(fn, binary)
    side.join()
    guarded(test_shutdown, binary)
    return finish()


if __name__ == "__main__":
    sys.exit(main())

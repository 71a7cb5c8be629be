#!/usr/bin/env python3
"""Graceful shutdown with a request in flight (issue 24: SIGTERM/SIGINT, --shutdown-timeout).

usage: test_shutdown.py BINARY [TEST...]

A man2html wrapper that sleeps before it runs man2html (--man2html) keeps a page render in
flight while the signal comes, on a keep-alive connection; raw sockets on loopback:
  term       SIGTERM 0.3 s into a 1 s render: the page is answered with Connection: close,
             the connection then closed, and the process exits 0 well before
             --shutdown-timeout (5 s)
  int        the same with SIGINT
  procs      the same with --procs 2 (the parent forwards the signal)
  refused    during that grace period a new connection is refused (the listening socket is
             closed in every process), with --procs 1 and 2
  second     a second SIGTERM during the grace period exits at once (status 1)
  timeout    a render that outlives --shutdown-timeout 0.3: man2html is ended and the request
             answered 502 with Connection: close; the process exits 0 soon after the 0.3 s
Before the fix of the keep-alive decision (it read the stopping flag before the handler ran)
term/int/procs got Connection: keep-alive and then a closed socket, and timeout a 502 with
keep-alive; before the listening socket was closed, refused's connect was accepted and reset.
"""
import os
import signal
import socket
import stat
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_harness import Server, check, finish, run_concurrently  # noqa: E402

PAGE = "/man/1/ls"  # rendered by man2html on the first request (nothing is cached yet)
MAN2HTML = "/usr/bin/man2html"


def wrapper(tmp, seconds):
    """A man2html that sleeps `seconds` first (a file of its own: the tests run at once)."""
    fd, path = tempfile.mkstemp(prefix=f"slow-man2html-{seconds}-", dir=tmp)
    os.close(fd)
    with open(path, "w") as f:
        f.write(f"#!/bin/sh\nsleep {seconds}\nexec {MAN2HTML} \"$@\"\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def in_flight(srv):
    """A keep-alive connection with a request for a page being rendered."""
    c = srv.connect()
    c.send(f"GET {PAGE} HTTP/1.1\r\nHost: x\r\n\r\n")
    return c


def wait_exit(srv, limit):
    """(exit status or "hung", seconds) of the server process, waiting at most `limit`."""
    t0 = time.monotonic()
    try:
        rc = srv.proc.wait(timeout=limit)
    except Exception:  # noqa: BLE001
        srv.proc.kill()
        srv.proc.wait()
        rc = "hung"
    return rc, time.monotonic() - t0


def answer_then_close(c, status, what):
    try:
        st, h, body = c.response()
    except (EOFError, ConnectionResetError) as e:
        check(False, f"{what}: no response to the request in flight ({e})")
        return "no response"
    check(st == status, f"{what}: status {st}, expected {status}")
    check(h.get("connection") == "close",
          f"{what}: the answer says Connection: {h.get('connection')}, expected close")
    check(c.closed_within(3), f"{what}: connection not closed after the answer")
    return f"{st} with Connection: {h.get('connection')}"


def graceful(binary, tmp, sig, what, *args, status=200, render=1, bound=3,
             why="--shutdown-timeout is 5 s"):
    """A request whose page takes `render` s is in flight when `sig` arrives: it is answered
    with `status` and Connection: close, and the server exits 0 within `bound` s."""
    srv = Server(binary, "--threads", "2", "--man2html", wrapper(tmp, render), *args)
    c = in_flight(srv)
    time.sleep(0.3)
    t0 = time.monotonic()
    srv.proc.send_signal(sig)
    got = answer_then_close(c, status, what)
    rc, _ = wait_exit(srv, 10)
    took = time.monotonic() - t0
    check(rc == 0 and took < bound, f"{what}: exit {rc} {took:.2f}s after the signal "
                                    f"(expected 0 within {bound} s, {why})")
    c.close()
    print(f"{what}: {got}, exit {rc} {took:.2f}s after the signal")


def test_term(binary, tmp):
    graceful(binary, tmp, signal.SIGTERM, "SIGTERM in flight")


def test_int(binary, tmp):
    graceful(binary, tmp, signal.SIGINT, "SIGINT in flight")


def test_procs(binary, tmp):
    graceful(binary, tmp, signal.SIGTERM, "--procs 2 SIGTERM in flight", "--procs", "2")


def test_refused(binary, tmp):
    def one(procs):
        what = f"--procs {procs} grace period"
        try:
            srv = Server(binary, "--threads", "2", "--procs", procs, "--man2html", wrapper(tmp, 1.5))
        except BaseException as e:  # noqa: BLE001 (SystemExit: the server did not start)
            check(False, f"{what}: {e}")
            return
        c = in_flight(srv)
        time.sleep(0.3)
        srv.proc.send_signal(signal.SIGTERM)
        time.sleep(0.3)  # the request is still being rendered
        try:
            s = socket.create_connection(("127.0.0.1", srv.port), timeout=2)
            s.close()
            new = "accepted"
        except ConnectionRefusedError:
            new = "refused"
        check(new == "refused", f"{what}: a new connection was {new} while stopping")
        got = answer_then_close(c, 200, what)
        rc, took = wait_exit(srv, 10)
        check(rc == 0, f"{what}: exit {rc}")
        c.close()
        print(f"{what}: new connection {new}; in-flight request {got}; exit {rc}")
    # --procs 1 and 2 at once, each on its own server
    ts = [threading.Thread(target=one, args=(procs,)) for procs in ("1", "2")]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def test_second(binary, tmp):
    srv = Server(binary, "--threads", "2", "--man2html", wrapper(tmp, 5))
    c = in_flight(srv)
    time.sleep(0.3)
    srv.proc.send_signal(signal.SIGTERM)
    time.sleep(0.3)
    t0 = time.monotonic()
    srv.proc.send_signal(signal.SIGTERM)
    rc, took = wait_exit(srv, 10)
    check(rc == 1 and took < 1, f"second signal: exit {rc} after {took:.2f}s "
                                f"(expected 1 at once)")
    c.close()
    print(f"second signal: exit {rc} {took:.2f}s after it")


def test_timeout(binary, tmp):
    graceful(binary, tmp, signal.SIGTERM, "past --shutdown-timeout 0.3", "--shutdown-timeout",
             "0.3", status=502, render=5, bound=1.5, why="the page takes 5 s")


def main():
    binary = sys.argv[1]
    only = sys.argv[2:]
    if not os.access(MAN2HTML, os.X_OK):
        print(f"FAIL: {MAN2HTML} missing", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        # at once: each mostly waits for a render or a signal, on a server of its own
        run_concurrently((test_term, test_int, test_procs, test_refused, test_second, test_timeout),
                         only, binary, tmp)
    return finish()


if __name__ == "__main__":
    sys.exit(main())

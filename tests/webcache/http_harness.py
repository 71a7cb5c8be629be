"""The HTTP harness of test_http.py: a webcache server started on a free port, a raw
keep-alive connection that parses responses, and the failure list the checks append to."""
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time

LINK_HOST = "webcache.test"  # the host the pages' links name (--link-host)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)
    return cond


def guarded(fn, *args):
    """Runs one test; an exception (a hang, a reset) is a failure of that test, not the end."""
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001
        check(False, f"{fn.__name__}: {type(e).__name__}: {e}")


def run_selected(tests, only, *args):
    """Runs each test whose name without "test_" is in `only` (every one if it is empty),
    guarded, and prints its time."""
    for fn in tests:
        if not only or fn.__name__[5:] in only:
            t = time.monotonic()
            guarded(fn, *args)
            print(f"{fn.__name__}: {time.monotonic() - t:.1f}s")


def run_concurrently(tests, only, *args):
    """run_selected, each test in a thread of its own (tests that mostly wait, each on its own
    server); any exception, SystemExit from a server that did not start included, is a
    failure of that test."""
    def one(fn):
        t = time.monotonic()
        try:
            fn(*args)
        except BaseException as e:  # noqa: BLE001
            check(False, f"{fn.__name__}: {type(e).__name__}: {e}")
        print(f"{fn.__name__}: {time.monotonic() - t:.1f}s")
    threads = [threading.Thread(target=one, args=(fn,))
               for fn in tests if not only or fn.__name__[5:] in only]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def finish():
    """The exit status of a test script: 1 (and the count) if any check failed, else 0."""
    if failures:
        print(f"{len(failures)} failure(s)", file=sys.stderr)
        return 1
    print("ok")
    return 0


class Server:
    def __init__(self, binary, *args, env=None):
        self.proc = subprocess.Popen([binary, "--port", "0", "--link-host", LINK_HOST, *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=env or os.environ.copy())
        ready, _, _ = select.select([self.proc.stdout], [], [], 10)
        line = self.proc.stdout.readline().decode() if ready else ""
        m = re.fullmatch(r"webcache: listening on 127\.0\.0\.1:(\d+)\n", line)
        if not m:
            self.proc.kill()
            raise SystemExit(f"FAIL: bad startup line {line!r}; stderr: "
                             f"{self.proc.stderr.read().decode()[:500]}")
        self.port = int(m.group(1))

    def connect(self, timeout=10):
        s = socket.create_connection(("127.0.0.1", self.port), timeout=timeout)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return Conn(s)

    def get(self, path, method="GET"):
        c = self.connect()
        c.send(f"{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        r = c.response(head=method == "HEAD")
        c.close()
        return r

    def stats(self):
        return json.loads(self.get("/_stats")[2])

    def stop(self, what="server"):
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = "hung"
        err = self.proc.stderr.read().decode()
        check(rc == 0, f"{what}: SIGTERM exit status {rc}, expected 0; stderr: {err[:500]}")
        check(self.proc.stdout.read() == b"", f"{what}: printed more than the startup line")
        return err


class Conn:
    def __init__(self, sock):
        self.s, self.buf = sock, b""

    def send(self, data):
        self.s.sendall(data.encode() if isinstance(data, str) else data)

    def _fill(self):
        d = self.s.recv(65536)
        if not d:
            raise EOFError("connection closed")
        self.buf += d

    def response(self, head=False):
        """(status, headers with lower-case names, body bytes)."""
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        h, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = h.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        assert lines[0].startswith("HTTP/1.1 "), lines[0]
        hdrs = {}
        for ln in lines[1:]:
            k, v = ln.split(":", 1)
            hdrs[k.strip().lower()] = v.strip()
        n = 0 if head else int(hdrs["content-length"])
        while len(self.buf) < n:
            self._fill()
        body, self.buf = self.buf[:n], self.buf[n:]
        return status, hdrs, body

    def closed_within(self, seconds):
        """True if the server closes the connection (EOF) within `seconds`."""
        self.s.settimeout(seconds)
        try:
            while True:
                if not self.s.recv(65536):
                    return True
        except (socket.timeout, TimeoutError):
            return False
        except ConnectionResetError:
            return True

    def close(self):
        self.s.close()


def mask_time(body):
    # man2html ends each page with the time it ran; only that line may differ between renders.
    return re.sub(rb"Time: [^\n]*", b"Time: -", body)


def expect_error(srv, raw, status, closes, what):
    c = srv.connect()
    c.send(raw)
    try:
        st, h, _ = c.response()
    except (EOFError, ConnectionResetError) as e:
        check(False, f"{what}: no response ({e})")
        return
    check(st == status, f"{what}: status {st}, expected {status}")
    if closes:
        check(h.get("connection") == "close", f"{what}: no Connection: close")
        check(c.closed_within(5), f"{what}: connection not closed")
    else:
        check(h.get("connection") == "keep-alive", f"{what}: connection not kept")
        c.send("GET /_stats HTTP/1.1\r\nHost: x\r\n\r\n")
        check(c.response()[0] == 200, f"{what}: next request on the connection failed")
    c.close()

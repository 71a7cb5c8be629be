#!/usr/bin/env python3
"""Differential test: the same malformed and edge-case requests to webcache and to Debian's
nginx-light (issue 24 acceptance).

usage: test_nginx_diff.py BINARY [NGINX]

nginx is started on a free loopback port with a minimal configuration serving a directory
that holds the paths webcache serves (/, /_stats, /man/3/printf). Every request goes to both
on a fresh connection and the first final status is compared (an interim 100 is skipped; 0:
no status line). A difference must be listed, with its reason, in the table "Differences from
nginx" of apps/webcache/README.md, and a listed difference must still be one: the table and
the servers are kept in step. Prints every case with both statuses.
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_harness import Server, check, finish  # noqa: E402

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "apps",
                      "webcache", "README.md")
H = "Host: x\r\n"
CASES = [  # (id, raw request)
    ("get", f"GET / HTTP/1.1\r\n{H}\r\n"),
    ("head", f"HEAD / HTTP/1.1\r\n{H}\r\n"),
    ("page", f"GET /man/3/printf HTTP/1.1\r\n{H}\r\n"),
    ("missing-page", f"GET /nothing/here HTTP/1.1\r\n{H}\r\n"),
    ("query", f"GET /?a=1&b HTTP/1.1\r\n{H}\r\n"),
    ("http10-no-host", "GET / HTTP/1.0\r\n\r\n"),
    ("http11-no-host", "GET / HTTP/1.1\r\n\r\n"),
    ("two-hosts", f"GET / HTTP/1.1\r\n{H}{H}\r\n"),
    ("host-space", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n"),
    ("host-slash", "GET / HTTP/1.1\r\nHost: x/y\r\n\r\n"),
    ("host-port", "GET / HTTP/1.1\r\nHost: x:8080\r\n\r\n"),
    ("host-bad-port", "GET / HTTP/1.1\r\nHost: x:8o\r\n\r\n"),
    ("absolute-http", f"GET http://x/ HTTP/1.1\r\n{H}\r\n"),
    ("absolute-https", f"GET https://x/ HTTP/1.1\r\n{H}\r\n"),
    ("absolute-ftp", f"GET ftp://x/ HTTP/1.1\r\n{H}\r\n"),
    ("options-star", f"OPTIONS * HTTP/1.1\r\n{H}\r\n"),
    ("options-path", f"OPTIONS / HTTP/1.1\r\n{H}\r\n"),
    ("connect", "CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n"),
    ("post", f"POST / HTTP/1.1\r\n{H}Content-Length: 3\r\n\r\nabc"),
    ("put", f"PUT / HTTP/1.1\r\n{H}Content-Length: 0\r\n\r\n"),
    ("delete", f"DELETE / HTTP/1.1\r\n{H}\r\n"),
    ("unknown-method", f"FOO / HTTP/1.1\r\n{H}\r\n"),
    ("lowercase-method", f"get / HTTP/1.1\r\n{H}\r\n"),
    ("http2", f"GET / HTTP/2.0\r\n{H}\r\n"),
    ("http12", f"GET / HTTP/1.2\r\n{H}\r\n"),
    ("http3", f"GET / HTTP/3.0\r\n{H}\r\n"),
    ("version-garbage", f"GET / HTTP/1\r\n{H}\r\n"),
    ("http09", "GET /\r\n\r\n"),
    ("double-space", f"GET  / HTTP/1.1\r\n{H}\r\n"),
    ("bare-lf", "GET / HTTP/1.1\nHost: x\n\n"),
    ("leading-crlf", f"\r\n\r\nGET / HTTP/1.1\r\n{H}\r\n"),
    ("obs-fold", f"GET / HTTP/1.1\r\n{H}X-A: 1\r\n  continued\r\n\r\n"),
    ("header-no-colon", f"GET / HTTP/1.1\r\n{H}NoColonHere\r\n\r\n"),
    ("header-space-colon", f"GET / HTTP/1.1\r\n{H}X-A : 1\r\n\r\n"),
    ("header-ctl", f"GET / HTTP/1.1\r\n{H}X-A: a\x01b\r\n\r\n"),
    ("bad-escape", f"GET /%zz HTTP/1.1\r\n{H}\r\n"),
    ("escape-nul", f"GET /a%00b HTTP/1.1\r\n{H}\r\n"),
    ("escape-ok", f"GET /man/3/print%66 HTTP/1.1\r\n{H}\r\n"),
    ("fragment", f"GET /#x HTTP/1.1\r\n{H}\r\n"),
    ("target-ctl", f"GET /a\x01b HTTP/1.1\r\n{H}\r\n"),
    ("target-8bit", f"GET /a\xffb HTTP/1.1\r\n{H}\r\n"),
    ("dotdot", f"GET /../etc/passwd HTTP/1.1\r\n{H}\r\n"),
    ("long-line", "GET /" + "a" * 9000 + f" HTTP/1.1\r\n{H}\r\n"),
    ("long-header", f"GET / HTTP/1.1\r\n{H}X-Big: " + "b" * 17000 + "\r\n\r\n"),
    ("many-headers", f"GET / HTTP/1.1\r\n{H}" + "".join(f"X-{i}: {'v' * 90}\r\n"
                                                          for i in range(200)) + "\r\n"),
    ("cl-garbage", f"GET / HTTP/1.1\r\n{H}Content-Length: abc\r\n\r\n"),
    ("cl-two", f"GET / HTTP/1.1\r\n{H}Content-Length: 1\r\nContent-Length: 2\r\n\r\nab"),
    ("cl-same-twice", f"GET / HTTP/1.1\r\n{H}Content-Length: 1\r\nContent-Length: 1\r\n\r\na"),
    ("cl-negative", f"GET / HTTP/1.1\r\n{H}Content-Length: -1\r\n\r\n"),
    ("cl-huge", f"GET / HTTP/1.1\r\n{H}Content-Length: 2000000\r\n\r\n"),
    ("chunked", f"GET / HTTP/1.1\r\n{H}Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"),
    ("chunked-bad-size", f"GET / HTTP/1.1\r\n{H}Transfer-Encoding: chunked\r\n\r\nzz\r\n"),
    ("te-gzip", f"GET / HTTP/1.1\r\n{H}Transfer-Encoding: gzip\r\n\r\n"),
    ("te-chunked-cl", f"GET / HTTP/1.1\r\n{H}Transfer-Encoding: chunked\r\nContent-Length: 3"
                      "\r\n\r\n0\r\n\r\n"),
    ("te-http10", "GET / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
    ("expect-continue", f"GET / HTTP/1.1\r\n{H}Expect: 100-continue\r\nContent-Length: 2"
                        "\r\n\r\nab"),
    ("expect-other", f"GET / HTTP/1.1\r\n{H}Expect: teapot\r\n\r\n"),
    ("connection-close", f"GET / HTTP/1.1\r\n{H}Connection: close\r\n\r\n"),
]


def status(port, raw):
    s = socket.create_connection(("127.0.0.1", port), timeout=3)
    buf = b""
    try:
        s.sendall(raw.encode("latin-1"))
        while True:
            while b"\r\n\r\n" not in buf and b"\n\n" not in buf:
                d = s.recv(65536)
                if not d:
                    break
                buf += d
            m = re.match(rb"HTTP/1\.[01] (\d{3})", buf)
            if not m:
                return 0
            st = int(m.group(1))
            if st >= 200:
                return st
            buf = buf[buf.index(b"\r\n\r\n") + 4:]  # an interim response
    except OSError:
        return int(m.group(1)) if (m := re.match(rb"HTTP/1\.[01] (\d{3})", buf)) else 0
    finally:
        s.close()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_nginx(nginx, d):
    root = os.path.join(d, "root")
    os.makedirs(os.path.join(root, "man", "3"))
    for p in ("index.html", "_stats", "man/3/printf"):
        with open(os.path.join(root, p), "w") as f:
            f.write("<html>ok</html>\n")
    port = free_port()
    conf = os.path.join(d, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""daemon off; master_process off; worker_processes 1;
pid {d}/nginx.pid; error_log {d}/error.log;
events {{ worker_connections 64; }}
http {{
  access_log off;
  client_body_temp_path {d}/body; proxy_temp_path {d}/proxy;
  fastcgi_temp_path {d}/fastcgi; uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;
  server {{ listen 127.0.0.1:{port}; root {root}; }}
}}
""")
    proc = subprocess.Popen([nginx, "-c", conf, "-p", d, "-e", f"{d}/error.log"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            if proc.poll() is not None:
                raise SystemExit(f"FAIL: nginx did not start: {proc.stderr.read().decode()}")
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("FAIL: nginx did not listen")


def listed():
    """{case id: (webcache status, nginx status)} from the README's table."""
    out, on = {}, False
    for ln in open(README):
        if ln.startswith("#"):
            on = "Differences from nginx" in ln
        m = re.match(r"\| `([a-z0-9-]+)` \| [^|]* \| (\d+) \| (\d+) \|", ln) if on else None
        if m:
            out[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return out


def main():
    binary = sys.argv[1]
    nginx = sys.argv[2] if len(sys.argv) > 2 else shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.path.exists(nginx):
        print("FAIL: nginx not installed (scripts/deps.sh installs nginx-light)", file=sys.stderr)
        return 1
    d = tempfile.mkdtemp(prefix="webcache-nginx-")
    ngx, nport = start_nginx(nginx, d)
    srv = Server(binary, "--threads", "2")
    table = listed()
    try:
        for cid, raw in CASES:
            ours, theirs = status(srv.port, raw), status(nport, raw)
            print(f"{cid:20} webcache {ours:3}  nginx {theirs:3}"
                  f"{'' if ours == theirs else '  (differs)'}")
            if ours != theirs:
                check(table.get(cid) == (ours, theirs),
                      f"{cid}: webcache {ours}, nginx {theirs}: not listed as such in the README "
                      f"(listed: {table.get(cid)})")
            else:
                check(cid not in table, f"{cid}: listed as a difference, but both answer {ours}")
        for cid in table:
            check(cid in dict(CASES), f"README lists {cid}, which is no test case")
    finally:
        ngx.terminate()
        ngx.wait(timeout=10)
        srv.stop()
        shutil.rmtree(d, ignore_errors=True)
    return finish()


if __name__ == "__main__":
    sys.exit(main())

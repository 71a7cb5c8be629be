"""A small HTTP/1.1 server for testing webcache-load's response framing (not a benchmark).

Paths: /cl/...    200 with Content-Length (2,000 bytes)
       /chunk/... 200, chunked transfer coding (three chunks and a trailer)
       /close/... 200 with Content-Length and `Connection: close`
       /404/...   404 with a body
       /slow/...  200 after 2 s
       /_count    JSON {"requests": N}: GETs served so far, this one excluded
Prints `listening on 127.0.0.1:PORT` once ready; exits on SIGTERM.
"""
import http.server
import json
import signal
import socketserver
import sys
import threading
import time

lock = threading.Lock()
served = [0]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = 1 << 16          # one write per response (no Nagle / delayed-ACK stalls)

    def do_GET(self):
        if self.path == "/_count":
            with lock:
                body = json.dumps({"requests": served[0]}).encode()
            return self.reply(200, body)
        with lock:
            served[0] += 1
        kind = self.path.split("/")[1]
        if kind == "chunk":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for part in (b"a" * 100, b"b" * 1000, b"c" * 7):
                self.wfile.write(b"%x;ext=1\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\nX-Trailer: yes\r\n\r\n")
        elif kind == "close":
            self.close_connection = True
            self.reply(200, b"x" * 2000, [("Connection", "close")])
        elif kind == "404":
            self.reply(404, b"not here\n")
        elif kind == "slow":
            time.sleep(2)
            self.reply(200, b"late\n")
        else:
            self.reply(200, b"y" * 2000)

    def reply(self, code, body, headers=()):
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


if __name__ == "__main__":
    srv = Server(("127.0.0.1", 0), Handler)
    signal.signal(signal.SIGTERM, lambda *a: threading.Thread(target=srv.shutdown).start())
    print(f"listening on 127.0.0.1:{srv.server_address[1]}", flush=True)
    srv.serve_forever()
    sys.exit(0)

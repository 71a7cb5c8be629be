"""test_malformed.py — bad clients never take the server or other clients down.

    python test_malformed.py SERVER

One well-behaved client stays connected throughout and must keep getting right answers while
other connections send random garbage, binary garbage, a 1 MB line without a newline, a huge
key, a value longer than declared, a value declared over the limit, and disconnect in the
middle of a command line, of a value, and of a binary header; at the end the server must still
accept connections. (No assertion about what the bad clients are told beyond what memcached
also answers.)
"""
import os
import random
import socket
import sys
import time

from pymemcache.client.base import Client

from kv_harness import Failures, raw, server

F = Failures("malformed")


def send_and_drop(port, data, wait=0.05):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.sendall(data)
            time.sleep(wait)
    except OSError:
        pass  # the server may close on us: fine


def main():
    target = sys.argv[1]
    rnd = random.Random(7)
    with server(target, ["-t", "2"]) as port:
        good = Client(("127.0.0.1", port), default_noreply=False, timeout=5)
        good.set("steady", b"value")

        def still_fine(what):
            F.eq(good.get("steady"), b"value", f"good client after {what}")

        for i in range(20):
            send_and_drop(port, bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 3000))))
        still_fine("random garbage")
        send_and_drop(port, b"\x80" + os.urandom(200))
        send_and_drop(port, b"\x80\x01\x00\x05\x08\x00\x00\x00\xff\xff\xff\xff" + b"\x00" * 12)
        still_fine("binary garbage")
        F.eq(raw(port, b"g" * 5000, timeout=3), b"", "a 5000-byte line: closed without an answer")
        send_and_drop(port, b"g" * (1 << 20), wait=0.2)
        still_fine("a 1 MB line")
        F.eq(raw(port, b"set " + b"k" * 5000 + b" 0 0 1\r\nx\r\n", b"ERROR\r\n"),
             b"CLIENT_ERROR bad command line format\r\nERROR\r\n", "5000-byte key refused")
        still_fine("a huge key")
        F.eq(raw(port, b"set k 0 0 2\r\n" + b"y" * 100 + b"\r\nget k\r\n", b"END\r\n")[:29],
             b"CLIENT_ERROR bad data chunk\r\n", "value longer than declared")
        still_fine("a value longer than declared")
        send_and_drop(port, b"set half 0 0 100000\r\n" + b"z" * 50000)
        send_and_drop(port, b"set half2 0 0 10")
        send_and_drop(port, b"get steady steady steady")
        send_and_drop(port, b"set over 0 0 5000000\r\n" + b"z" * 100000)
        still_fine("disconnects mid-command and mid-value")
        F.eq(good.get("half"), None, "a half-sent value is not stored")
        # many connections dropping mid-value at once
        socks = []
        for i in range(30):
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            s.sendall(b"set many%d 0 0 1000\r\n" % i + b"w" * 500)
            socks.append(s)
        for s in socks:
            s.close()
        still_fine("30 connections dropped mid-value")
        F.eq(good.set("after", b"ok"), True, "set after the abuse")
        F.eq(Client(("127.0.0.1", port), timeout=5).get("after"), b"ok", "a new connection works")
        good.close()
    F.done()


if __name__ == "__main__":
    main()

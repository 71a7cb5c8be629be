#!/usr/bin/env python3
"""Concurrent memcached ASCII-protocol stress with exact final checks.

N clients (threads, one connection each) x R rounds. Each round a client:
  incr one of 3 hot counters (round % 3) by (id+1), decr a shared counter by 1 when round%5==0,
  appends a unique token to a shared log, prepends a unique token to another,
  does a gets/cas loop increment on a shared cas counter,
  sets its own key and one of 2 shared hot keys and reads its own key back.
At the end every value is checked against what the clients did.
Usage: stress.py PORT [clients] [rounds]
"""
import socket
import sys
import threading
from collections import Counter

HOST = "127.0.0.1"


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection((HOST, port), timeout=30)
        self.buf = b""

    def line(self):
        while b"\r\n" not in self.buf:
            d = self.s.recv(65536)
            if not d:
                raise ConnectionError("server closed the connection")
            self.buf += d
        l, self.buf = self.buf.split(b"\r\n", 1)
        return l

    def exact(self, n):
        while len(self.buf) < n + 2:
            d = self.s.recv(65536)
            if not d:
                raise ConnectionError("server closed the connection")
            self.buf += d
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def cmd(self, c):
        self.s.sendall(c)
        return self.line()

    def store(self, verb, key, val, cas=None):
        extra = b" %d" % cas if cas is not None else b""
        return self.cmd(b"%s %s 0 0 %d%s\r\n%s\r\n" % (verb, key, len(val), extra, val))

    def get(self, key, with_cas=False):
        self.s.sendall(b"%s %s\r\n" % (b"gets" if with_cas else b"get", key))
        l = self.line()
        if l == b"END":
            return None
        parts = l.split()
        if parts[0] != b"VALUE" or parts[1] != key:
            raise AssertionError("bad get reply %r" % l)
        val = self.exact(int(parts[3]))
        end = self.line()
        if end != b"END":
            raise AssertionError("bad get tail %r" % end)
        return (val, int(parts[4])) if with_cas else val


def expect(got, want, what):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def client(port, cid, rounds, errors, casretries):
    try:
        c = Conn(port)
        own = b"own%d" % cid
        for r in range(rounds):
            reply = c.cmd(b"incr ctr%d %d\r\n" % (r % 3, cid + 1))
            if not reply.isdigit():
                raise AssertionError("incr reply %r" % reply)
            if r % 5 == 0:
                reply = c.cmd(b"decr down 1\r\n")
                if not reply.isdigit():
                    raise AssertionError("decr reply %r" % reply)
            expect(c.store(b"append", b"alog", b"a%d.%d;" % (cid, r)), b"STORED", "append")
            expect(c.store(b"prepend", b"plog", b"p%d.%d;" % (cid, r)), b"STORED", "prepend")
            while True:
                v, cas = c.get(b"casctr", with_cas=True)
                rep = c.store(b"cas", b"casctr", b"%d" % (int(v) + 1), cas)
                if rep == b"STORED":
                    break
                if rep != b"EXISTS":
                    raise AssertionError("cas reply %r" % rep)
                casretries[cid] += 1
            val = b"%d:%d:" % (cid, r) + b"x" * ((cid * 37 + r) % 200)
            expect(c.store(b"set", own, val), b"STORED", "set own")
            expect(c.store(b"set", b"hot%d" % (r % 2), b"h%d.%d" % (cid, r)), b"STORED", "set hot")
            expect(c.get(own), val, "get own key %s round %d" % (own.decode(), r))
            h = c.get(b"hot%d" % ((r + 1) % 2))
            if h is not None and not h.startswith(b"h"):
                raise AssertionError("hot value %r" % h)
    except Exception as e:  # reported by the main thread
        errors.append("client %d: %s: %s" % (cid, type(e).__name__, e))


def main():
    port = int(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    c = Conn(port)
    expect(c.cmd(b"flush_all\r\n"), b"OK", "flush_all")
    expect(c.cmd(b"stats reset\r\n"), b"RESET", "stats reset")
    for k, v in ((b"ctr0", b"0"), (b"ctr1", b"0"), (b"ctr2", b"0"), (b"down", b"1000000"),
                 (b"alog", b""), (b"plog", b""), (b"casctr", b"0")):
        expect(c.store(b"set", k, v), b"STORED", "init " + k.decode())
    errors, casretries = [], [0] * n
    ts = [threading.Thread(target=client, args=(port, i, rounds, errors, casretries)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    bad = list(errors)

    def check(what, got, want):
        if got != want:
            bad.append("%s: got %r, want %r" % (what, got, want))

    for k in range(3):
        want = sum((cid + 1) for cid in range(n) for r in range(rounds) if r % 3 == k)
        check("ctr%d" % k, c.get(b"ctr%d" % k), b"%d" % want)
    check("down", c.get(b"down"), b"%d" % (1000000 - n * len(range(0, rounds, 5))))
    check("casctr", c.get(b"casctr"), b"%d" % (n * rounds))
    for key, pre in ((b"alog", "a"), (b"plog", "p")):
        toks = Counter(t for t in c.get(key).decode().split(";") if t)
        want = Counter("%s%d.%d" % (pre, cid, r) for cid in range(n) for r in range(rounds))
        check(key.decode() + " tokens", toks, want)
        # each client's own tokens must appear in its own order (append: ascending; prepend: descending)
        seq = [t for t in c.get(key).decode().split(";") if t]
        for cid in range(n):
            mine = [int(t.split(".")[1]) for t in seq if t.startswith("%s%d." % (pre, cid))]
            order = list(range(rounds)) if pre == "a" else list(range(rounds - 1, -1, -1))
            check("%s order of client %d" % (key.decode(), cid), mine, order)
    for cid in range(n):
        r = rounds - 1
        check("own%d" % cid, c.get(b"own%d" % cid),
              b"%d:%d:" % (cid, r) + b"x" * ((cid * 37 + r) % 200))
    for h in range(2):
        v = c.get(b"hot%d" % h)
        ok = v is not None and any(v == b"h%d.%d" % (cid, rounds - 1 - ((rounds - 1 - h) % 2)) for cid in range(n))
        if not ok:
            bad.append("hot%d final value %r is no client's last write" % (h, v))
    c.s.sendall(b"stats\r\n")
    stats = {}
    while True:
        l = c.line()
        if l == b"END":
            break
        _, k, v = l.decode().split(" ", 2)
        stats[k] = v
    check("stats incr_hits", int(stats["incr_hits"]), n * rounds)
    check("stats cas_hits", int(stats["cas_hits"]), n * rounds)
    check("stats cas_badval", int(stats["cas_badval"]), sum(casretries))
    if bad:
        print("FAIL")
        for b in bad[:20]:
            print("  " + b)
        sys.exit(1)
    print("PASS clients=%d rounds=%d cas_retries=%d threads=%s" % (n, rounds, sum(casretries), stats.get("threads")))


if __name__ == "__main__":
    main()

"""test_admin.py — the administrative side of the text and binary protocols, as memcached has it.

    python test_admin.py SERVER

SERVER is a kvcache binary or the word "memcached": the same assertions hold for both. Checked
here (issue 44: found by memcached's own t/*.t files, kept in `make test` so that a change
cannot undo them without a download):
- flush_all with a unix time (any value over 30 days is one) flushes at that time, not before;
  `-F` refuses flush_all in both protocols;
- `verbosity` with a level that is not a number is a format error, not OK;
- `stats reset` clears the per-class counters of `stats items` too (evictions at -m 2);
- expired items give their chunks back to new stores of their class (reclaimed; memcached may
  also reclaim them with its LRU crawler), so the class does not grow;
- `stats detail on|dump|off` and `stats cachedump` answer (a client waiting for END must get
  it); `stats settings` (text and binary) names domain_socket, evictions, cas_enabled,
  flush_enabled.
"""
import socket
import struct
import sys
import threading
import time

from pymemcache.client.base import Client

from kv_harness import Failures, raw, server

F = Failures("admin")


def client(port):
    return Client(("127.0.0.1", port), default_noreply=False, timeout=5, connect_timeout=5)


def bin_request(port, opcode, key=b"", extras=b""):
    """One binary request; the responses up to (and including) the first with an empty key
    and body for `stat`, else the first. Returns [(status, key, value)]."""
    body = extras + key
    pkt = struct.pack(">BBHBBHIIQ", 0x80, opcode, len(key), len(extras), 0, 0, len(body), 0,
                      0) + body
    out = []
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(pkt)
        buf = b""
        while True:
            while len(buf) < 24:
                d = s.recv(65536)
                if not d:
                    return out
                buf += d
            _, _, klen, elen, _, status, blen = struct.unpack(">BBHBBHI", buf[:12])
            while len(buf) < 24 + blen:
                buf += s.recv(65536)
            k = buf[24 + elen:24 + elen + klen]
            v = buf[24 + elen + klen:24 + blen]
            buf = buf[24 + blen:]
            out.append((status, k, v))
            if opcode != 0x10 or (not k and not v) or status:
                return out


def flush_at_time(c, port):
    c.set("fa1", b"x")
    when = int(time.time()) + 3
    F.eq(raw(port, b"flush_all %d\r\n" % when, b"\r\n"), b"OK\r\n", "flush_all <unix time>")
    F.eq(c.get("fa1"), b"x", "not flushed before that time")
    while time.time() < when + 1.2:
        time.sleep(0.2)
    F.eq(c.get("fa1"), None, "flushed once that time has passed")
    F.eq(c.set("fa2", b"y"), True, "set after the flush time")
    F.eq(c.get("fa2"), b"y", "stored after the flush time: kept")


def verbosity(port):
    F.eq(raw(port, b"verbosity invalid\r\n", b"\r\n"), b"CLIENT_ERROR bad command line format\r\n",
         "verbosity invalid")
    F.eq(raw(port, b"verbosity 1\r\nverbosity 0 noreply\r\nverbosity x noreply\r\n"
              b"verbosity 0\r\n", b"OK\r\nOK\r\n"), b"OK\r\nOK\r\n", "verbosity N [noreply]")


def detail_and_dump(c, port):
    F.eq(raw(port, b"stats detail on\r\n", b"\r\n"), b"OK\r\n", "stats detail on")
    c.set("pfx:a", b"1")
    c.get("pfx:a")
    c.get("pfx:b")
    c.delete("pfx:a")
    F.eq(raw(port, b"stats detail dump\r\n", b"END\r\n"),
         b"PREFIX pfx get 2 hit 1 set 1 del 1\r\nEND\r\n", "stats detail dump")
    F.eq(raw(port, b"stats detail off\r\n", b"\r\n"), b"OK\r\n", "stats detail off")
    F.eq(raw(port, b"stats detail\r\n", b"\r\n"), b"CLIENT_ERROR usage: stats detail on|off|dump\r\n",
         "stats detail without a word")
    c.set("dumped", b"12345")
    out = raw(port, b"stats cachedump 1 0\r\n", b"END\r\n")
    F.check(out.endswith(b"END\r\n"), f"stats cachedump 1 0 ends with END: {out[-40:]!r}")
    F.eq(raw(port, b"stats cachedump 200 1\r\n", b"\r\n"), b"CLIENT_ERROR Illegal slab id\r\n",
         "stats cachedump of a class that does not exist")
    st = c.stats("settings")
    for name in (b"domain_socket", b"evictions", b"cas_enabled", b"flush_enabled"):
        F.check(name in st, f"stats settings has {name!r}")
    names = {k for status, k, v in bin_request(port, 0x10, b"settings") if k}
    for name in (b"domain_socket", b"evictions", b"cas_enabled", b"flush_enabled"):
        F.check(name in names, f"binary stat settings has {name!r}")
    for group in (b"detail on", b"detail off"):
        got = bin_request(port, 0x10, group)
        F.eq([s for s, k, v in got], [0], f"binary stat {group!r}: one empty success")


def reclaim(c):
    """Expired items of one class make room for new ones: the class keeps its pages."""
    value = b"r" * 3000
    for i in range(200):
        c.set(f"exp{i}", value, expire=1)

    def pages():
        st = c.stats("slabs")
        return sum(v for k, v in st.items() if k.endswith(b":total_pages"))

    before = pages()
    time.sleep(2.2)
    for i in range(200):
        c.set(f"new{i}", value)
    s = c.stats()
    F.check(s[b"reclaimed"] + s.get(b"crawler_reclaimed", 0) > 0,
            f"expired items reclaimed: {s[b'reclaimed']} (+ crawler "
            f"{s.get(b'crawler_reclaimed', 0)})")
    F.check(pages() <= before, f"no new pages for the same number of items: {before} -> {pages()}")


def reset_per_class(target):
    with server(target, ["-m", "2"]) as port:
        c = client(port)
        for i in range(400):
            c.set(f"ev{i}", b"e" * 10000)
        items = c.stats("items")
        F.check(any(k.endswith(b":evicted") and v > 0 for k, v in items.items()),
                "-m 2 filled: items:N:evicted > 0")
        F.eq(raw(port, b"stats reset\r\n", b"\r\n"), b"RESET\r\n", "stats reset")
        items = c.stats("items")
        left = {k: v for k, v in items.items() if k.endswith((b":evicted", b":evicted_time",
                                                             b":reclaimed", b":outofmemory"))
                and v}
        F.eq(left, {}, "per-class counters after stats reset")
        F.eq(c.stats()[b"evictions"], 0, "evictions after stats reset")
        c.close()


def no_flush(target):
    with server(target, ["-F"]) as port:
        c = client(port)
        c.set("kept", b"1")
        F.eq(raw(port, b"flush_all\r\n", b"\r\n"), b"CLIENT_ERROR flush_all not allowed\r\n",
             "-F: flush_all refused")
        F.eq(raw(port, b"flush_all noreply\r\nget kept\r\n", b"END\r\n"),
             b"VALUE kept 0 1\r\n1\r\nEND\r\n", "-F: flush_all noreply refused silently")
        got = bin_request(port, 0x08)
        F.check(len(got) == 1 and got[0][0] != 0, f"-F: binary flush refused: {got}")
        F.eq(c.get("kept"), b"1", "-F: nothing flushed")
        F.eq(c.stats("settings")[b"flush_enabled"], b"no", "-F: flush_enabled no")
        c.close()


def main_server(target):
    with server(target, ["-t", "2"]) as port:
        c = client(port)
        verbosity(port)
        detail_and_dump(c, port)
        reclaim(c)
        F.eq(c.set("alive", b"1"), True, "server still answers")
        c.close()


def flush_server(target):
    with server(target, ["-t", "2"]) as port:
        c = client(port)
        flush_at_time(c, port)
        F.eq(c.set("alive", b"1"), True, "server still answers after the flush time")
        c.close()


def main():
    # Four servers at once: the test mostly waits (reclaim 2.2 s for its items to expire,
    # flush_at_time 3-4 s for its unix time), and no piece looks at another's server.
    target = sys.argv[1]
    errors = []

    def run(fn):
        try:
            fn(target)
        except BaseException as e:  # a server that did not start or died fails the test
            errors.append(f"{fn.__name__}: {e!r}")

    ts = [threading.Thread(target=run, args=(fn,))
          for fn in (flush_server, main_server, reset_per_class, no_flush)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for e in errors:
        F.check(False, e)
    F.done()


if __name__ == "__main__":
    main()

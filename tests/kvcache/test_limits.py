"""test_limits.py — the server's limits, each on a server started with its option.

    python test_limits.py SERVER

- `-c 50`: 60 connections at once: the first ones are served, the rest get `ERROR Too many open
  connections` and are closed (memcached counts its own descriptors against -c, so only the shape
  is asserted, not the exact number), and once connections close new ones are served again;
- `-I 512k` and `-I 2m` (non-default item limits): a value just under is stored and read back,
  one over gets `SERVER_ERROR object too large for cache` (after the value has been read);
- an append or prepend that would make the item larger than -I answers NOT_STORED and keeps
  the old value (memcached's answer);
- `-m 2`: a full cache evicts: 3,000 sets of 10 KB (15 times the memory) are all STORED, the
  `evictions` counter grows, the last keys stored are there and the first ones gone.
The same assertions hold for every kvcache build and for Debian's memcached.
"""
import socket
import sys
import time

from kv_harness import Failures, raw, server

F = Failures("limits")


def answer(s):
    """The first line the server sends, or b"" if it closed."""
    out = b""
    while not out.endswith(b"\r\n"):
        d = s.recv(4096)
        if not d:
            break
        out += d
    return out


def connections(target):
    with server(target, ["-c", "50"]) as port:
        socks, answers = [], []
        for _ in range(60):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"version\r\n")
            answers.append(answer(s))
            socks.append(s)
        served = sum(a.startswith(b"VERSION ") for a in answers)
        refused = [i for i, a in enumerate(answers) if a == b"ERROR Too many open connections\r\n"]
        F.check(served >= 20, f"-c 50: the first connections are served ({served})")
        F.check(refused and served + len(refused) == 60 and refused[0] == served,
                f"-c 50: past the limit every connection is refused: {answers}")
        if refused:
            try:
                closed = socks[refused[0]].recv(100) == b""
            except ConnectionResetError:
                closed = True
            F.check(closed, "a refused connection is closed")
        for s in socks:
            s.close()
        time.sleep(0.3)
        F.check(raw(port, b"version\r\n", b"\r\n").startswith(b"VERSION "),
                "served again after connections closed")


def store(port, key, n, ch=b"v"):
    return raw(port, b"set %s 0 0 %d\r\n" % (key, n) + ch * n + b"\r\n", b"\r\n", timeout=10)


def item_limit(target):
    for limit, under, over in (("512k", 400 * 1024, 600 * 1024), ("2m", 1900 * 1024, 2200 * 1024)):
        with server(target, ["-I", limit]) as port:
            F.eq(store(port, b"u", under), b"STORED\r\n", f"-I {limit}: {under} bytes stored")
            got = raw(port, b"get u\r\n", b"END\r\n", timeout=10)
            F.eq(len(got), len(b"VALUE u 0 %d\r\n" % under) + under + len(b"\r\nEND\r\n"),
                 f"-I {limit}: {under} bytes read back")
            F.eq(store(port, b"o", over) + raw(port, b"version\r\n", b"\r\n")[:8],
                 b"SERVER_ERROR object too large for cache\r\nVERSION ",
                 f"-I {limit}: {over} bytes refused, the value read and dropped")
    with server(target) as port:  # -I 1m
        n = 600 * 1024
        F.eq(store(port, b"a", n), b"STORED\r\n", "600 KB stored")
        for op in (b"append", b"prepend"):
            F.eq(raw(port, b"%s a 0 0 %d\r\n" % (op, n) + b"w" * n + b"\r\n", b"\r\n", timeout=10),
                 b"NOT_STORED\r\n", f"{op.decode()} past -I: NOT_STORED")
        got = raw(port, b"get a\r\n", b"END\r\n", timeout=10)
        F.check(got.startswith(b"VALUE a 0 %d\r\nvvv" % n) and b"w" not in got,
                "the old value is kept")


def eviction(target):
    with server(target, ["-m", "2"]) as port:
        n, size = 3000, 10 * 1024
        value = b"e" * size
        with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
            out = b""
            for lo in range(0, n, 100):  # batches of 100, answers read as they come
                s.sendall(b"".join(b"set key%d 0 0 %d\r\n%s\r\n" % (i, size, value)
                                   for i in range(lo, lo + 100)))
                while out.count(b"\r\n") < lo + 100:
                    d = s.recv(65536)
                    if not d:
                        break
                    out += d
        lines = out.split(b"\r\n")[:-1]
        F.eq((len(lines), set(lines)), (n, {b"STORED"}), "every set of a full cache is STORED")
        stats = raw(port, b"stats\r\n", b"END\r\n")
        ev = [int(ln.split()[2]) for ln in stats.split(b"\r\n") if ln.startswith(b"STAT evictions ")]
        F.check(ev and ev[0] > 0, f"evictions counted: {ev}")
        last = raw(port, b"get key%d\r\n" % (n - 1), b"END\r\n", timeout=5)
        F.check(last.startswith(b"VALUE key%d 0 %d\r\n" % (n - 1, size)), "the last key is there")
        F.eq(raw(port, b"get key0\r\n", b"END\r\n"), b"END\r\n", "the first key was evicted")


def main():
    target = sys.argv[1]
    connections(target)
    item_limit(target)
    eviction(target)
    F.done()


if __name__ == "__main__":
    main()

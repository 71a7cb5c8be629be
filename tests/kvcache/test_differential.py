"""test_differential.py — kvcache and Debian's memcached answer the same command stream alike.

    python test_differential.py SERVER [SEEDS]

Random text-protocol commands (storage with flags up to 2^37 and exptimes, cas with guessed ids,
get/gets/gat/gats on several keys or none, delete with the old hold time and noreply, incr/decr on
numbers, padded numbers and non-numbers, touch, noreply, a 250-byte key, 3000-byte values) on a few keys, one command at a time, each followed
by `version` as a marker; both servers' answers must be identical, byte for byte, except the CAS
ids in gets/gats (normalized) and the version string. No command depends on real time passing
(memcached's clock ticks once a second, so expiry at the boundaries is not comparable), and
memcached runs without its LRU background threads (see main).
"""
import random
import re
import socket
import sys

from kv_harness import Failures, server

F = Failures("differential")


def gen(rnd, n):
    keys = ["a", "b", "n", "k" * 250, "x"]
    out = []
    for _ in range(n):
        k = rnd.choice(keys)
        op = rnd.choice(["set", "add", "replace", "append", "prepend", "cas", "get", "gets", "delete",
                         "incr", "decr", "touch", "gat", "gats", "noreply", "num"])
        v = rnd.choice([b"", b"1", b"12", b"abc", b"99999999999999999999", b"18446744073709551615", b"x" * 3000, b"7 "])
        if op in ("set", "add", "replace", "append", "prepend"):
            out.append(b"%s %s %d %d %d\r\n%s\r\n" % (op.encode(), k.encode(), rnd.choice([0, 1, 4294967295, 4294967296, 99999999999]), rnd.choice([0, 0, 1000]), len(v), v))
        elif op == "noreply":
            out.append(b"set %s 0 0 %d noreply\r\n%s\r\n" % (k.encode(), len(v), v))
        elif op == "num":
            out.append(b"set %s 0 0 %d\r\n%s\r\n" % (k.encode(), len(v), v))
        elif op == "cas":
            out.append(b"cas %s 0 0 1 %d\r\nz\r\n" % (k.encode(), rnd.choice([0, 1, 2, 5, 10])))
        elif op in ("get", "gets"):
            out.append(b"%s %s %s\r\n" % (op.encode(), k.encode(), rnd.choice(keys).encode()))
        elif op in ("gat", "gats"):
            key = b"" if rnd.random() < 0.1 else b" " + k.encode()  # no key: just END
            out.append(b"%s %d%s\r\n" % (op.encode(), rnd.choice([0, 100, 1000]), key))
        elif op == "delete":
            out.append(b"delete %s%s\r\n" % (k.encode(), rnd.choice(
                [b"", b"", b" 0", b" noreply", b" 0 noreply", b" 1 noreply", b" 1", b" 0 x"])))
        elif op in ("incr", "decr"):
            out.append(b"%s %s %s\r\n" % (op.encode(), k.encode(), rnd.choice([b"1", b"0", b"18446744073709551615", b"5"])))
        elif op == "touch":
            out.append(b"touch %s %d\r\n" % (k.encode(), rnd.choice([0, 100, 1000])))
    return out


def run(target, cmds, args=()):
    out = []
    with server(target, args) as port:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        for c in cmds:
            s.sendall(c + b"version\r\n")
            buf = b""
            while not re.search(rb"(^|\n)VERSION [^\r\n]*\r\n$", buf):
                d = s.recv(65536)
                if not d:
                    raise EOFError("server closed")
                buf += d
            buf = re.sub(rb"VERSION [^\r\n]*\r\n$", b"", buf)
            out.append(re.sub(rb"(VALUE \S+ \d+ \d+) \d+", rb"\1 CAS", buf))
        s.close()
    return out


def main():
    target = sys.argv[1]
    seeds = [int(x) for x in sys.argv[2].split(",")] if len(sys.argv) > 2 else [1, 2, 3]
    for seed in seeds:
        cmds = gen(random.Random(seed), 400)
        # memcached's LRU maintainer and crawler threads take references to items now and then,
        # and an incr/decr that finds an item referenced builds a new one instead of padding the
        # number in place: without them memcached's answers are deterministic
        want = run("memcached", cmds, ["-o", "no_lru_crawler,no_lru_maintainer"])
        got = run(target, cmds)
        diffs = [(c, w, g) for c, w, g in zip(cmds, want, got) if w != g]
        first = next((i for i, (w, g) in enumerate(zip(want, got)) if w != g), None)
        if first is not None:  # what led there: the earlier commands naming the same keys
            keys = set(cmds[first].split(b"\r\n")[0].split()[1:])
            for j in [j for j in range(first) if keys & set(cmds[j].split(b"\r\n")[0].split()[1:])][-6:]:
                print(f"  before: {cmds[j][:50]!r} -> {want[j][-40:]!r} | {got[j][-40:]!r}",
                      file=sys.stderr)
        for c, w, g in diffs[:3]:
            print(f"seed {seed}: {c[:60]!r}\n  memcached {w[-80:]!r}\n  kvcache   {g[-80:]!r}",
                  file=sys.stderr)
        F.eq(len(diffs), 0, f"seed {seed}: commands answered differently")
    F.done()


if __name__ == "__main__":
    main()

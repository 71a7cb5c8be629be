"""test_accounting.py — memory accounting after conflicting stores, deletes and retries.

    python test_accounting.py SERVER

A server with more worker threads than the machine has cores (-t 4) takes, for a few seconds,
pipelined batches from 8 connections that all work on the same few keys: set, add, replace,
append, prepend, cas (with ids from gets), delete, touch, incr and decr, with values from 10
bytes to 120 KB, so that the cache sections conflict often (transactions abort and retry under
the TM builds) and append/incr allocate a new item while others replace or delete the old one.
Once every connection has closed, nothing may be left behind:
  - the slab chunks in use are exactly the items stored (sum of used_chunks == curr_items: a
    chunk taken in an attempt that rolled back, or an item whose reference count was left too
    high, shows up here);
  - kvcache: `bytes` is the sum of header (72) + key + value over the keys present;
  - after every key is deleted: curr_items, bytes and used_chunks are 0, every class's chunks
    are all free, and (kvcache) the free chunks are all reusable: as many items as a class has
    chunks are stored in it without a new page or an eviction, then a 900 KB value is stored;
  - no answer is SERVER_ERROR at the default -m (the data fits many times over).
The same run on `-m 2`, where the classes are full and stores evict (under conflicts too):
an `out of memory storing object` answer is allowed there (kvcache, like memcached 1.4, may find
only referenced items at a class's tail), every other invariant holds.
SERVER is a kvcache binary or "memcached"; TMKIT_ALGO etc. come from the environment.
KV_ACCT_SECONDS sets the length of each load (default 2).
"""
import os
import random
import re
import socket
import sys
import threading
import time

from kv_harness import Failures, is_memcached, server

F = Failures("accounting")
HEADER = 72  # kvcache's item header (apps/kvcache/kv.h), part of `bytes`
KEYS = [b"acct-k%d" % i for i in range(6)]
NUMS = [b"acct-n%d" % i for i in range(2)]
SIZES = [10, 200, 3000, 20000, 120000]
VALUE_RE = re.compile(rb"VALUE (\S+) \d+ (\d+)(?: (\d+))?\r\n")


def exchange(s, data):
    """Sends data plus `version` and returns the answers before VERSION."""
    s.sendall(data + b"version\r\n")
    out = b""
    while True:
        d = s.recv(1 << 20)
        if not d:
            raise RuntimeError("the server closed the connection")
        out += d
        # values hold only letters, digits, + and -: a line starting VERSION is the sentinel's
        end = out.rfind(b"\r\nVERSION ")
        if (out.startswith(b"VERSION ") or end >= 0) and out.endswith(b"\r\n"):
            return out[:end + 2] if end >= 0 else b""


def stats(s, group=b""):
    out = exchange(s, b"stats" + (b" " + group if group else b"") + b"\r\n")
    d = {}
    for line in out.split(b"\r\n"):
        p = line.split()
        if len(p) == 3 and p[0] == b"STAT":
            d[p[1].decode()] = p[2].decode()
    return d


def slab_sum(sl, field):
    return sum(int(v) for k, v in sl.items() if k.endswith(":" + field))


def batch(rnd, casids):
    cmds = []
    for _ in range(60):
        k = rnd.choice(KEYS)
        op = rnd.random()
        size = rnd.choice(SIZES)
        if op < 0.22:
            cmds.append(b"set %s 0 0 %d\r\n%s\r\n" % (k, size, b"x" * size))
        elif op < 0.30:
            cmds.append(b"replace %s 0 0 %d\r\n%s\r\n" % (k, size, b"y" * size))
        elif op < 0.36:
            cmds.append(b"add %s 0 0 %d\r\n%s\r\n" % (k, size, b"z" * size))
        elif op < 0.44:
            cmds.append(b"append %s 0 0 1\r\n+\r\n" % k)
        elif op < 0.49:
            cmds.append(b"prepend %s 0 0 1\r\n-\r\n" % k)
        elif op < 0.55 and k in casids:
            cmds.append(b"cas %s 0 0 %d %d\r\n%s\r\n" % (k, size, casids[k], b"c" * size))
        elif op < 0.65:
            cmds.append(b"delete %s\r\n" % k)
        elif op < 0.68:
            cmds.append(b"touch %s 0\r\n" % k)
        elif op < 0.76:
            n = rnd.choice(NUMS)
            cmds.append(b"add %s 0 0 2\r\n10\r\nincr %s 7\r\ndecr %s 3\r\n" % (n, n, n))
        elif op < 0.84:
            cmds.append(b"gets %s %s\r\n" % (k, rnd.choice(KEYS)))
        else:
            cmds.append(b"get %s %s %s\r\n" % (k, rnd.choice(KEYS), rnd.choice(NUMS)))
    return b"".join(cmds)


def load(port, seconds, nconn=8):
    """nconn connections send batches until the time is up; returns the SERVER_ERROR answers
    (a count and a sample) and the other unexpected lines."""
    lock = threading.Lock()
    server_errors, odd, errors = [0, []], [], []
    stop = time.time() + seconds

    def work(i):
        rnd, casids = random.Random(i), {}
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
                while time.time() < stop:
                    out = exchange(s, batch(rnd, casids))
                    for m in VALUE_RE.finditer(out):
                        if m.group(3):
                            casids[m.group(1)] = int(m.group(3))
                    n = out.count(b"SERVER_ERROR")
                    bad = [ln for ln in out.split(b"\r\n") if ln.startswith((b"ERROR", b"CLIENT_ERROR"))]
                    with lock:
                        server_errors[0] += n
                        if n and len(server_errors[1]) < 3:
                            at = out.index(b"SERVER_ERROR")
                            server_errors[1].append(out[at:out.index(b"\r\n", at)])
                        odd.extend(bad[:3])
        except Exception as e:  # reported below, the test must not hang
            with lock:
                errors.append(f"connection {i}: {e!r}")

    ts = [threading.Thread(target=work, args=(i,)) for i in range(nconn)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(seconds + 60)
    F.eq(errors, [], "client connections failed")
    return server_errors, odd


def settled(s, memcached):
    """Stats once the counts are stable: the server may finish a closed connection's release
    after the client has gone (memcached also runs background threads)."""
    prev = None
    for _ in range(50):
        st, sl = stats(s), stats(s, b"slabs")
        cur = (st.get("curr_items"), st.get("bytes"), slab_sum(sl, "used_chunks"))
        if cur == prev and (memcached or int(cur[0]) == cur[2]):
            break
        prev = cur
        time.sleep(0.1)
    return st, sl


def present(s):
    out = exchange(s, b"get " + b" ".join(KEYS + NUMS) + b"\r\n")
    return {m.group(1): int(m.group(2)) for m in VALUE_RE.finditer(out)}


def check_run(target, mem, seconds):
    memcached = is_memcached(target)
    with server(target, ["-t", "4", "-m", str(mem)]) as port:
        (nerr, sample), odd = load(port, seconds)
        if mem >= 64:
            F.eq((nerr, sample), (0, []), f"-m {mem}: no SERVER_ERROR (the data fits)")
        else:
            F.check(all(e == b"SERVER_ERROR out of memory storing object" for e in sample),
                    f"-m {mem}: only out-of-memory answers: {sample}")
        F.eq(odd, [], f"-m {mem}: no ERROR or CLIENT_ERROR answer")
        with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
            st, sl = settled(s, memcached)
            items = present(s)
            used = slab_sum(sl, "used_chunks")
            F.eq(int(st["curr_items"]), len(items), f"-m {mem}: curr_items equals the keys present")
            F.eq(used, len(items), f"-m {mem}: chunks in use equal the items stored")
            if not memcached:
                want = sum(HEADER + len(k) + n for k, n in items.items())
                F.eq(int(st["bytes"]), want, f"-m {mem}: bytes is header + key + value of each item")
            exchange(s, b"".join(b"delete %s\r\n" % k for k in KEYS + NUMS))
            st, sl = settled(s, memcached)
            F.eq((int(st["curr_items"]), int(st["bytes"]), slab_sum(sl, "used_chunks")), (0, 0, 0),
                 f"-m {mem}: after deleting every key: curr_items, bytes, used_chunks")
            F.eq(slab_sum(sl, "free_chunks"), slab_sum(sl, "total_chunks"),
                 f"-m {mem}: every chunk is free again")
            if not memcached:
                reuse(s, sl, mem)
            big = exchange(s, b"set acct-big 0 0 900000\r\n" + b"b" * 900000 + b"\r\n")
            F.eq(big, b"STORED\r\n", f"-m {mem}: a 900 KB value is stored at the end")


def class_of(total, item_max=1 << 20, factor=1.25):
    """kvcache's slab class for an item of `total` bytes (kv_slabs.c: chunks from 96 bytes, x1.25
    rounded up to 8, up to half the item limit; then one class of whole pages)."""
    size, c = 96, 1
    while size <= item_max // 2:
        if total <= size:
            return c
        size = (int(size * factor) + 7) & ~7
        c += 1
    return c


def reuse(s, sl, mem):
    """Every free chunk of the classes the load used can be taken again: filling a class with as
    many items as it has chunks adds no page and evicts nothing (a chunk lost from a free list, or
    never returned to it, would make the class grow or evict)."""
    ev0 = int(stats(s)["evictions"])
    for size in SIZES:
        total = size + HEADER + len(b"acct-f-0000")
        c = class_of(total)
        if f"{c}:total_chunks" not in sl:
            continue  # a class the load did not use
        chunks = int(sl[f"{c}:total_chunks"])
        if chunks > 2000:
            continue  # the small classes: thousands of sets, no more coverage
        value = b"f" * size
        out = b""
        for lo in range(0, chunks, 50):
            out += exchange(s, b"".join(b"set acct-f-%04d 0 0 %d\r\n%s\r\n" % (i, size, value)
                                        for i in range(lo, min(chunks, lo + 50))))
        F.eq(out, b"STORED\r\n" * chunks, f"-m {mem}: {chunks} sets of {size} bytes in class {c}")
        after = stats(s, b"slabs")
        F.eq((after.get(f"{c}:total_pages"), after.get(f"{c}:used_chunks")),
             (sl[f"{c}:total_pages"], str(chunks)),
             f"-m {mem}: class {c} filled from its free chunks (pages, chunks in use)")
        exchange(s, b"".join(b"delete acct-f-%04d\r\n" % i for i in range(chunks)))
    F.eq(int(stats(s)["evictions"]), ev0, f"-m {mem}: refilling the free chunks evicts nothing")


def main():
    target = sys.argv[1]
    seconds = float(os.environ.get("KV_ACCT_SECONDS", "2"))
    check_run(target, 64, seconds)
    check_run(target, 2, seconds)
    F.done()


if __name__ == "__main__":
    main()

"""test_concurrency.py — many clients at once against a server with fewer threads.

    python test_concurrency.py SERVER

  incr:    8 connections (the server has 2 threads) incr one key; the total is exact, and so are
           the incr_hits / incr_misses counters.
  cas:     in each round 6 connections read the same CAS id, then all try cas; exactly one wins;
           cas_hits and cas_badval count the winners and the losers.
  churn:   4 connections set, append, get and delete keys whose values carry a checkable pattern,
           once while the hash table expands (8,000 more keys, -o hashpower=12: the table must
           grow) and once on a server with -m 4 (there must be evictions): every value read is
           whole (never torn or another key's), the fill keys read back intact or not at all;
           the global counters agree: cmd_get == get_hits + get_misses, cmd_get grew by the gets
           the clients sent.
SERVER is a kvcache binary or "memcached"; TMKIT_ALGO etc. come from the environment.
"""
import random
import sys
import threading
import time

from pymemcache.client.base import Client
from pymemcache.exceptions import MemcacheServerError

from kv_harness import Failures, server

F = Failures("concurrency")


def client(port):
    return Client(("127.0.0.1", port), default_noreply=False, timeout=10, connect_timeout=5)


def run_threads(n, fn):
    errors = []

    def wrap(i):
        try:
            fn(i)
        except Exception as e:  # reported below, the test must not hang
            errors.append(f"thread {i}: {e!r}")

    ts = [threading.Thread(target=wrap, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    F.eq(errors, [], "client threads raised")


def slab_summary(port):
    """The server's `stats slabs` totals and per-class pages, one line (for failure messages)."""
    try:
        s = client(port).stats("slabs")
    except Exception as e:  # the failure being reported matters more
        return f"unavailable ({e!r})"
    keep = [k for k in s if not k.startswith(b"0") and
            (b":" not in k or k.endswith((b":total_pages", b":used_chunks", b":free_chunks")))]
    return ", ".join(f"{k.decode()}={s[k]}" for k in sorted(keep))


def counters(c, *names):
    s = c.stats()
    return [int(s.get(n.encode(), -1)) for n in names]


def incr_test(port, nconn=8, per=250):
    c0 = client(port)
    c0.set("ctr", b"0")
    before = counters(c0, "incr_hits", "incr_misses")

    def work(i):
        c = client(port)
        for _ in range(per):
            c.incr("ctr", 1)
        c.close()

    run_threads(nconn, work)
    F.eq(int(c0.get("ctr")), nconn * per, "incr from many connections sums exactly")
    after = counters(c0, "incr_hits", "incr_misses")
    F.eq([a - b for a, b in zip(after, before)], [nconn * per, 0], "incr_hits, incr_misses")


def cas_test(port, nconn=6, rounds=15):
    clients = [client(port) for _ in range(nconn)]
    before = counters(clients[0], "cas_hits", "cas_badval", "cas_misses")
    barrier = threading.Barrier(nconn)
    wins = [0] * rounds
    lock = threading.Lock()
    for r in range(rounds):
        clients[0].set("race", b"start")

        def work(i, r=r):
            c = clients[i]
            _, cas = c.gets("race")
            barrier.wait()
            if c.cas("race", b"winner-%d" % i, cas):
                with lock:
                    wins[r] += 1

        run_threads(nconn, work)
    F.eq(wins, [1] * rounds, "exactly one cas winner per round")
    after = counters(clients[0], "cas_hits", "cas_badval", "cas_misses")
    F.eq([a - b for a, b in zip(after, before)], [rounds, rounds * (nconn - 1), 0],
         "cas_hits, cas_badval, cas_misses")
    for c in clients:
        c.close()


def pattern(key, version, size):
    unit = b"%s:%d;" % (key.encode(), version)
    return (unit * (size // len(unit) + 1))[:size]


def valid(key, value):
    if value is None:
        return True
    head = value.split(b";", 1)[0]
    k, _, v = head.partition(b":")
    if k != key.encode() or not v.isdigit():
        return False
    # the value is a set's pattern, possibly followed by appended "+" bytes
    base = value.rstrip(b"+")
    return base == pattern(key, int(v), len(base))


def churn_test(port, expand, nconn=4, ops=300, nkeys=8000):
    bad = []
    last = {}
    lock = threading.Lock()
    gets = [0]
    gets_before = counters(client(port), "cmd_get")[0]

    def work(i):
        rnd = random.Random(i)
        c = client(port)
        # first, many distinct keys (the table expands past 1.5 * 2^12 items)
        mine = [f"fill-{i}-{j}" for j in range(nkeys // nconn if expand else 0)]
        c.set_many({k: pattern(k, 0, 100) for k in mine})
        for n in range(ops):
            k = f"key-{rnd.randrange(64)}"
            op = rnd.random()
            if op < 0.4:
                size = rnd.choice([50, 900, 9000, 100000, 300000])
                v = n * 100 + i
                try:
                    c.set(k, pattern(k, v, size))
                except MemcacheServerError as e:
                    # With -m 4 a size class may hold no page while the others filled the limit,
                    # or only referenced items at its LRU tail: memcached 1.4's design (no slab
                    # rebalancing) answers this, and so does Debian's memcached at times. Not
                    # with the default -m.
                    if expand or b"out of memory storing object" not in str(e).encode():
                        # with the allocator's view: an "out of memory" at the default -m was
                        # seen once (2026-11-25) and never reproduced; this shows next time
                        # whether memory was really short (total_malloced) or an answer wrong
                        raise AssertionError(f"set {k!r} of {size} bytes: {e}; stats slabs: "
                                             f"{slab_summary(port)}") from e
            elif op < 0.5:
                c.append(k, b"+")
            elif op < 0.6:
                c.delete(k)
            else:
                got = c.get(k)
                with lock:
                    gets[0] += 1
                if not valid(k, got):
                    with lock:
                        bad.append((k, got[:60]))
        for k in mine[-50:] + mine[:50]:
            got = c.get(k)
            with lock:
                gets[0] += 1
            if got is not None and got != pattern(k, 0, 100):
                with lock:
                    bad.append((k, got))
        with lock:
            last[i] = True
        c.close()

    run_threads(nconn, work)
    F.eq(bad, [], "every value read is whole")
    c = client(port)
    for _ in range(50):  # memcached's maintainer wakes up to a second late
        s = c.stats()
        if not expand or s.get(b"hash_power_level", 0) >= 13:
            break
        time.sleep(0.1)
    F.check(s.get(b"curr_items", -1) >= 0 and s.get(b"bytes", -1) >= 0, f"counters {s.get(b'curr_items')} {s.get(b'bytes')}")
    F.eq(s.get(b"cmd_get"), s.get(b"get_hits", 0) + s.get(b"get_misses", 0),
         "cmd_get == get_hits + get_misses")
    F.eq(s.get(b"cmd_get", 0) - gets_before, gets[0], "cmd_get counts the clients' gets")
    if expand:
        # no evictions at the default -m: the item count is exact
        keys = [f"fill-{i}-{j}" for i in range(nconn) for j in range(nkeys // nconn)]
        keys += [f"key-{n}" for n in range(64)] + ["ctr", "race"]
        present = 0
        for n in range(0, len(keys), 500):
            present += len(c.get_many(keys[n:n + 500]))
        F.eq(s.get(b"curr_items"), present, "curr_items equals the keys present")
        F.eq(s.get(b"evictions"), 0, "no evictions at the default -m")
        F.check(s.get(b"hash_power_level", 0) >= 13,
                f"hash table expanded (level {s.get(b'hash_power_level')})")
    else:
        F.check(s.get(b"evictions", 0) > 0, f"evictions at -m 4 (evictions {s.get(b'evictions')})")
    F.eq(c.set("after", b"ok"), True, "set after churn")
    F.eq(c.get("after"), b"ok", "get after churn")
    c.close()


def main():
    target = sys.argv[1]
    with server(target, ["-t", "2", "-o", "hashpower=12"]) as port:
        incr_test(port)
        cas_test(port)
        churn_test(port, expand=True)
    with server(target, ["-t", "2", "-m", "4"]) as port:
        churn_test(port, expand=False)
    F.done()


if __name__ == "__main__":
    main()

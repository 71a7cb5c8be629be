"""test_text.py — the text protocol through a real client (pymemcache) and raw sockets.

    python test_text.py SERVER [--slow]

SERVER is a kvcache binary or the word "memcached" (Debian's /usr/bin/memcached): the same
assertions must hold for both (apps/kvcache/README.md lists the known differences, none of
which is asserted here). --slow adds the tests that wait for real time to pass (expiry, delayed
flush_all).
"""
import sys
import time

from pymemcache.client.base import Client
from pymemcache.exceptions import MemcacheClientError, MemcacheServerError

from kv_harness import Failures, raw, server

F = Failures("text")


def client(port):
    return Client(("127.0.0.1", port), default_noreply=False, timeout=5, connect_timeout=5)


def storage(c):
    F.eq(c.set("k1", b"v1"), True, "set")
    F.eq(c.get("k1"), b"v1", "get after set")
    F.eq(c.get("nokey"), None, "get miss")
    F.eq(c.add("k1", b"x"), False, "add existing")
    F.eq(c.add("k2", b"v2"), True, "add new")
    F.eq(c.replace("k2", b"v2b"), True, "replace existing")
    F.eq(c.replace("k3", b"x"), False, "replace missing")
    F.eq(c.append("k2", b"-end"), True, "append")
    F.eq(c.prepend("k2", b"start-"), True, "prepend")
    F.eq(c.get("k2"), b"start-v2b-end", "append+prepend")
    F.eq(c.append("k3", b"x"), False, "append missing")
    F.eq(c.get_many(["k1", "k2", "k3"]), {"k1": b"v1", "k2": b"start-v2b-end"}, "get_many")
    F.eq(c.delete("k1"), True, "delete")
    F.eq(c.delete("k1"), False, "delete missing")
    F.eq(c.get("k1"), None, "get after delete")
    F.eq(c.set("fl", b"x", flags=12345), True, "set with flags")
    F.eq(raw(c.server[1], b"get fl\r\n", b"END\r\n"), b"VALUE fl 12345 1\r\nx\r\nEND\r\n",
         "flags returned")
    F.eq(c.set("empty", b""), True, "empty value")
    F.eq(c.get("empty"), b"", "get empty value")
    big = bytes(range(256)) * 2000  # 512000 bytes, binary safe
    F.eq(c.set("big", big), True, "set 500 KB")
    F.eq(c.get("big"), big, "get 500 KB")
    key250 = "k" * 250
    F.eq(c.set(key250, b"long key"), True, "250-byte key")
    F.eq(c.get(key250), b"long key", "get 250-byte key")
    F.eq(c.set("nr", b"1", noreply=True), True, "noreply set")
    F.eq(c.get("nr"), b"1", "noreply set stored")


def cas_ops(c):
    c.set("c", b"a")
    v, cas = c.gets("c")
    F.eq(v, b"a", "gets value")
    F.check(cas is not None and int(cas) > 0, "gets cas id")
    F.eq(c.cas("c", b"b", cas), True, "cas with current id")
    F.eq(c.cas("c", b"c", cas), False, "cas with stale id")
    F.eq(c.get("c"), b"b", "value after cas")
    F.eq(c.cas("nocas", b"x", b"1"), None, "cas on missing key")
    v2, cas2 = c.gets("c")
    F.check(cas2 != cas, "cas id changes on store")
    c.set("c", b"d")
    _, cas3 = c.gets("c")
    F.check(cas3 != cas2, "cas id changes on set")


def arithmetic(c):
    c.set("n", b"10")
    F.eq(c.incr("n", 5), 15, "incr")
    F.eq(c.decr("n", 3), 12, "decr")
    F.eq(c.decr("n", 100), 0, "decr floors at 0")
    F.eq(c.incr("missing", 1), None, "incr missing")
    c.set("max", b"18446744073709551615")
    F.eq(c.incr("max", 1), 0, "incr wraps at 2^64")
    c.set("txt", b"abc")
    port = c.server[1]
    F.eq(raw(port, b"incr txt 1\r\n", b"\r\n"),
         b"CLIENT_ERROR cannot increment or decrement non-numeric value\r\n", "incr non-numeric")
    F.eq(raw(port, b"incr n abc\r\n", b"\r\n"), b"CLIENT_ERROR invalid numeric delta argument\r\n",
         "incr bad delta")
    c.set("w", b"100")
    c.decr("w", 1)
    F.eq(c.get("w").strip(), b"99", "decr shortens the number")


def touch_gat(c):
    port = c.server[1]
    c.set("t", b"tv", expire=100)
    F.eq(c.touch("t", 200), True, "touch existing")
    F.eq(c.touch("t-missing", 200), False, "touch missing")
    F.eq(raw(port, b"gat 100 t\r\n", b"END\r\n"), b"VALUE t 0 2\r\ntv\r\nEND\r\n", "gat")
    out = raw(port, b"gats 100 t t-missing\r\n", b"END\r\n")
    F.check(out.startswith(b"VALUE t 0 2 ") and out.endswith(b"\r\ntv\r\nEND\r\n"), f"gats: {out!r}")
    F.eq(raw(port, b"gat -1 t\r\n", b"END\r\n"), b"VALUE t 0 2\r\ntv\r\nEND\r\n", "gat -1 returns it")
    F.eq(c.get("t"), None, "gat -1 expired it")
    c.set("neg", b"x", expire=-1)
    F.eq(c.get("neg"), None, "negative exptime: expired at once")
    c.set("past", b"x", expire=int(time.time()) - 100)
    F.eq(c.get("past"), None, "absolute exptime in the past")
    c.set("future", b"x", expire=int(time.time()) + 1000)
    F.eq(c.get("future"), b"x", "absolute exptime in the future")


def errors(port):
    F.eq(raw(port, b"bogus\r\n", b"\r\n"), b"ERROR\r\n", "unknown command")
    F.eq(raw(port, b"\r\n", b"\r\n"), b"ERROR\r\n", "empty line")
    F.eq(raw(port, b"get\r\n", b"\r\n"), b"ERROR\r\n", "get without key")
    F.eq(raw(port, b"set x 0 0\r\n", b"\r\n"), b"ERROR\r\n", "set missing bytes")
    F.eq(raw(port, b"set x abc 0 1\r\nx\r\n", b"ERROR\r\n"),
         b"CLIENT_ERROR bad command line format\r\nERROR\r\n", "set bad flags (value read as a command)")
    F.eq(raw(port, b"set x 0 0 -1\r\n", b"\r\n"), b"CLIENT_ERROR bad command line format\r\n",
         "set negative length")
    long_key = b"k" * 251
    F.eq(raw(port, b"get " + long_key + b"\r\n", b"\r\n"),
         b"CLIENT_ERROR bad command line format\r\n", "get with 251-byte key")
    F.eq(raw(port, b"set " + long_key + b" 0 0 1\r\n", b"\r\n"),
         b"CLIENT_ERROR bad command line format\r\n", "set with 251-byte key")
    F.eq(raw(port, b"set k 0 0 3\r\nabcdef\r\n", b"ERROR\r\n"),
         b"CLIENT_ERROR bad data chunk\r\nERROR\r\n", "value longer than declared")
    big = 2 * 1024 * 1024
    F.eq(raw(port, b"set huge 0 0 %d\r\n" % big + b"x" * big + b"\r\nget huge\r\n", b"END\r\n"),
         b"SERVER_ERROR object too large for cache\r\nEND\r\n", "value over the item limit")
    F.eq(raw(port, b"delete x 5\r\n", b"\r\n"),
         b"CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]\r\n",
         "delete with a time")
    # delete's old hold time: only 0, and a trailing noreply silences even the usage error
    for line, want, kept in ((b"delete d 0 noreply", b"", False), (b"delete d noreply", b"", False),
                             (b"delete d 0", b"DELETED\r\n", False),
                             (b"delete d 1 noreply", b"", True),
                             (b"delete d 0 x", b"CLIENT_ERROR bad command line format.  Usage: "
                              b"delete <key> [noreply]\r\n", True)):
        got = raw(port, b"set d 0 0 1\r\nd\r\n" + line + b"\r\nget d\r\n", b"END\r\n")
        F.eq(got, b"STORED\r\n" + want + (b"VALUE d 0 1\r\nd\r\n" if kept else b"") + b"END\r\n",
             line.decode())
    F.eq(raw(port, b"delete d 0 noreply x\r\n", b"\r\n"), b"ERROR\r\n", "delete, 4 arguments")
    F.eq(raw(port, b"delete noreply\r\n", b"\r\n"), b"NOT_FOUND\r\n", "delete of the key noreply")
    F.eq(raw(port, b"gat 10\r\n", b"\r\n"), b"END\r\n", "gat without key")
    F.eq(raw(port, b"gats 10\r\n", b"\r\n"), b"END\r\n", "gats without key")
    F.eq(raw(port, b"gat\r\n", b"\r\n"), b"ERROR\r\n", "gat without exptime")
    # flags: the low 32 bits of any 64-bit number are kept; larger or negative ones are refused
    for flags, kept in ((b"4294967296", b"0"), (b"99999999999", b"1215752191"),
                        (b"18446744073709551615", b"4294967295")):
        F.eq(raw(port, b"set fl2 %s 0 1\r\nx\r\nget fl2\r\n" % flags, b"END\r\n"),
             b"STORED\r\nVALUE fl2 %s 1\r\nx\r\nEND\r\n" % kept, b"flags " + flags)
    for flags in (b"18446744073709551616", b"-1"):
        F.eq(raw(port, b"set fl3 %s 0 1\r\nx\r\n" % flags, b"ERROR\r\n"),
             b"CLIENT_ERROR bad command line format\r\nERROR\r\n", b"flags " + flags)
    F.eq(raw(port, b"touch x abc\r\n", b"\r\n"), b"CLIENT_ERROR invalid exptime argument\r\n",
         "touch bad exptime")
    F.eq(raw(port, b"flush_all abc\r\n", b"\r\n"), b"CLIENT_ERROR invalid exptime argument\r\n",
         "flush_all bad delay")
    F.eq(raw(port, b"verbosity\r\n", b"\r\n"), b"ERROR\r\n", "verbosity without level")
    F.eq(raw(port, b"verbosity 0\r\n", b"\r\n"), b"OK\r\n", "verbosity 0")
    F.eq(raw(port, b"cas nocas 0 0 1 1\r\nx\r\n", b"\r\n"), b"NOT_FOUND\r\n", "cas missing")
    out = raw(port, b"version\r\n", b"\r\n")
    F.check(out.startswith(b"VERSION ") and out.endswith(b"\r\n"), f"version: {out!r}")
    F.eq(raw(port, b"set q 0 0 1\r\nq\r\nquit\r\nget q\r\n"), b"STORED\r\n", "quit closes")


def stats(c):
    s = c.stats()
    for name in (b"pid", b"uptime", b"curr_items", b"total_items", b"bytes", b"curr_connections",
                 b"cmd_get", b"cmd_set", b"get_hits", b"get_misses", b"evictions",
                 b"limit_maxbytes", b"threads", b"hash_power_level"):
        F.check(name in s, f"stats has {name!r}")
    hits = s.get(b"get_hits", 0)
    c.set("s1", b"x")
    c.get("s1")
    c.get("s-miss")
    s2 = c.stats()
    F.eq(s2.get(b"get_hits", 0) - hits, 1, "get_hits counts")
    F.check(s2.get(b"curr_items", 0) >= 1, "curr_items")
    items = c.stats("items")
    F.check(any(k.endswith(b":number") for k in items), "stats items has :number")
    slabs = c.stats("slabs")
    F.check(any(k.endswith(b":chunk_size") for k in slabs), "stats slabs has :chunk_size")
    F.check(b"total_malloced" in slabs, "stats slabs has total_malloced")


def flush(c):
    c.set("f1", b"x")
    c.set("f2", b"y")
    F.eq(c.flush_all(), True, "flush_all")
    F.eq(c.get_many(["f1", "f2"]), {}, "flush_all empties")
    F.eq(c.set("f3", b"z"), True, "set after flush")
    F.eq(c.get("f3"), b"z", "get after flush")


def slow(c):
    c.set("e1", b"x", expire=1)
    c.set("e2", b"y", expire=100)
    F.eq(c.get("e1"), b"x", "before expiry")
    c.flush_all(delay=2)
    time.sleep(2.2)
    F.eq(c.get("e1"), None, "after expiry")
    F.eq(c.get("e2"), None, "after delayed flush_all")
    F.eq(c.set("e3", b"z"), True, "set after delayed flush")
    F.eq(c.get("e3"), b"z", "get after delayed flush")


def main():
    target = sys.argv[1]
    with server(target, ["-t", "2"]) as port:
        c = client(port)
        storage(c)
        cas_ops(c)
        arithmetic(c)
        touch_gat(c)
        errors(port)
        stats(c)
        flush(c)
        if "--slow" in sys.argv:
            slow(c)
        F.eq(c.set("alive", b"1"), True, "server still answers")
        c.close()
    F.done()


if __name__ == "__main__":
    main()

"""test_compare.py — `tmkit report --compare` (tools/tmkit_cli/report/compare.py) on made-up
profiles: sites matched by name, then by a function that has one site on each side (the same
function at another line in the other build, as kv_store in two kvcache builds), never by a
function with several sites on one side; the why-and-where table (abort reasons, serial starts,
time lost) for the matched sites and the HTML page's rows of every reason, A vs B.

    python test_compare.py
"""
import contextlib
import io
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from tmkit_cli.report import compare  # noqa: E402

from kv_harness import Failures  # noqa: E402

F = Failures("compare")
COUNTERS = ["starts", "commits", "abort_read_conflict", "abort_write_conflict", "abort_validation",
            "abort_cancel", "abort_retry", "abort_serial", "serial_attempts",
            "irrevocable_switches", "cycles_committed", "cycles_aborted"]


class NamedSym:
    """Stands for the symbolizer: each site carries its name already."""

    def site_names(self, sites, program=None):
        for s in sites:
            s.setdefault("irrevocable_name", s.get("irrevocable", ""))


def site(name, starts, commits, read=0, write=0, serial=0, irrev=0, ms=1.0, lost=0.0, why=""):
    s = {c: 0 for c in COUNTERS}
    s.update(site=name, name=name, starts=starts, commits=commits, abort_read_conflict=read,
             abort_write_conflict=write, serial_attempts=serial, irrevocable_switches=irrev,
             cycles_committed=int(ms * 1e6), cycles_aborted=int(lost * 1e6), irrevocable=why)
    return s


def prof(path, sites):
    return {"tmkit_stats_version": 1, "path": path, "program": "kvcache", "pid": 1,
            "algorithm": "orec_eager", "tsc_hz": 1e9, "counters": COUNTERS, "sites": sites}


def main():
    a = prof("a.json", [
        site("kv_store (kv_cache.c:121)", 1000, 900, read=60, write=40, ms=3.0, lost=1.5),
        site("kv_get (kv_cache.c:80)", 500, 500, serial=5, irrev=20, why="kv_log (kv_cache.c:10)"),
        site("kv_delete (kv_cache.c:150)", 10, 10),
        site("kv_touch (kv_cache.c:170)", 7, 7),   # two sites in one function on side A:
        site("kv_touch (kv_cache.c:175)", 8, 8),   # not matched by function
        site("kv_flush (kv_cache.c:200)", 3, 3),
        site("app+0x3000", 4, 4),
    ])
    b = prof("b.json", [
        site("kv_store (kv_cache.c:120)", 2000, 1500, read=100, write=400, serial=3, ms=9.0, lost=4.0),
        site("kv_get (kv_cache.c:80)", 500, 500),
        site("kv_delete (kv_items.c:150)", 12, 12),
        site("kv_touch (kv_cache.c:174)", 15, 15),
        site("app+0x4000", 6, 6),
    ])
    res = compare.compare(a, b, NamedSym())
    names = [n for n, _, _ in res["matched"]]
    F.eq(names[0], "kv_store (kv_cache.c:121->120)", "the moved function is matched, first by time")
    F.check("kv_get (kv_cache.c:80)" in names, "the same name is matched")
    F.check("kv_delete (kv_cache.c:150->kv_items.c:150)" in names, "a function moved to another file")
    F.check(not any(n.startswith("kv_touch") for n in names), "two sites on one side: no match")
    only_a = sorted(r["site"] for r in res["only_a"])
    only_b = sorted(r["site"] for r in res["only_b"])
    F.eq(only_a, ["app+0x3000", "kv_flush (kv_cache.c:200)", "kv_touch (kv_cache.c:170)",
                  "kv_touch (kv_cache.c:175)"], "only in A")
    F.eq(only_b, ["app+0x4000", "kv_touch (kv_cache.c:174)"], "only in B")
    x, y = res["matched"][0][1:]
    F.eq((x["starts"], y["starts"]), (1000, 2000), "the moved function's counts, both sides")

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        compare.print_compare(res)
    text = out.getvalue()
    F.check("\nwhy and where" in text, "the why-and-where table is printed")
    rows = {ln[:40].rstrip(): ln for ln in text.splitlines()}
    store = rows.get("kv_store (kv_cache.c:121->120)", "")
    for want in ("100: read_conflict 60, write_conflict 40", "500: write_conflict 400, read_conflict 100",
                 " 1.50 ", " 4.00"):
        F.check(want in store, f"kv_store row has {want!r}: {store!r}")
    why = [ln for ln in text.splitlines() if ln.startswith("kv_get (kv_cache.c:80)")]
    F.eq(len(why), 2, "kv_get in both tables")
    F.check(why[1].split()[-6:] == ["25", "0", "0.00", "0.00", "kv_log", "(kv_cache.c:10)"],
            f"kv_get: 25 serial starts in A, 0 in B, serialized by kv_log: {why[1]!r}")

    # The HTML page's reasons, A vs B: "all" first, then the reasons by the larger side.
    by = {n: compare.reason_cells(n, x, y) for n, x, y in res["matched"]}
    F.eq(by["kv_store (kv_cache.c:121->120)"], [
        ["kv_store (kv_cache.c:121->120)", "all", 100, 500, "x5.00"],
        ["kv_store (kv_cache.c:121->120)", "write_conflict", 40, 400, "x10.00"],
        ["kv_store (kv_cache.c:121->120)", "read_conflict", 60, 100, "x1.67"]], "kv_store's reasons")
    F.eq(by["kv_get (kv_cache.c:80)"], [], "kv_get never aborts: no reason rows")
    F.done()


if __name__ == "__main__":
    main()

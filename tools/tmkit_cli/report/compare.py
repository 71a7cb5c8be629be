"""`tmkit report A.json B.json --compare`: two profiles side by side. Sites are matched by
function (file:line), or by object+offset when the object has no debug information; sites that
share a name on one side (one line, several call sites) are summed. A site left unmatched whose
function has only one site on each side is matched by the function alone (the same function moved
by a line between two builds: "kv_store (kv_cache.c:121->120)"). Changes are B relative to A:
ratios for counts and times, percentage points for the abort rate. A second table says why and
where for the same sites: the main abort reasons, the starts that ran serial (serial attempts and
switches to irrevocable) and the time lost in aborted attempts; the HTML page (page.py) adds
every abort reason of every matched site, A vs B."""
import re

from . import profiles as report

_FUNC = re.compile(r"^(?P<func>.+) \((?P<loc>[^()]+:\d+)\)$")


def by_name(prof, sym):
    sym.site_names(prof["sites"], prof.get("program"))
    acc = {}
    for s in prof["sites"]:
        a = acc.setdefault(s["name"], {"site": s["site"], "name": s["name"]})
        report.add_site(a, s, prof["counters"])
        a.setdefault("irrevocable_name", s.get("irrevocable_name", ""))
        if s.get("gcc_irrevocable_name"):
            a.setdefault("gcc_irrevocable_name", s["gcc_irrevocable_name"])
    hz = prof.get("tsc_hz") or 0
    return {name: report.row(s, hz) for name, s in acc.items()}


def _func(name):
    """("function", "file:line") of a symbolized site name, or None (object+offset names)."""
    m = _FUNC.match(name)
    return (m["func"], m["loc"]) if m else None


def match(ra, rb):
    """[(label, name in A, name in B)]: equal names, then a function with one site on each side."""
    pairs = [(n, n, n) for n in ra if n in rb]
    funcs = {}
    for side, names in ((0, ra), (1, rb)):
        for n in names:
            f = _func(n)
            if f:
                funcs.setdefault(f[0], ([], []))[side].append(n)
    for func, (na, nb) in funcs.items():
        if len(na) == 1 and len(nb) == 1 and na[0] not in rb and nb[0] not in ra:
            la, lb = _func(na[0])[1], _func(nb[0])[1]
            fa, fb = la.rsplit(":", 1), lb.rsplit(":", 1)
            moved = f"{la}->{fb[1]}" if fa[0] == fb[0] else f"{la}->{lb}"
            pairs.append((f"{func} ({moved})", na[0], nb[0]))
    return pairs


def compare(a, b, sym):
    ra, rb = by_name(a, sym), by_name(b, sym)
    pairs = sorted(match(ra, rb), key=lambda p: -max(time(ra[p[1]]), time(rb[p[2]])))
    used_a, used_b = {p[1] for p in pairs}, {p[2] for p in pairs}
    only = lambda x, used: sorted((x[n] for n in x if n not in used), key=lambda r: -time(r))  # noqa: E731
    return {"a": report.describe(a), "b": report.describe(b),
            "matched": [(label, ra[na], rb[nb]) for label, na, nb in pairs],
            "only_a": only(ra, used_a), "only_b": only(rb, used_b),
            "totals": (report.total(a, "total"), report.total(b, "total"))}


def time(r):
    return r["inside_ms"] + r["wasted_ms"]


def ratio(x, y):
    if x == y:
        return "="
    return f"x{y / x:.2f}" if x else "new"


def delta_pt(x, y):
    return f"{100 * (y - x):+.1f}pt"


HEADER = (f"{'site':<40} {'starts A':>9} {'starts B':>9} {'change':>7} {'commits A':>9} "
          f"{'commits B':>9} {'change':>7} {'abort% A':>8} {'abort% B':>8} {'change':>8} "
          f"{'ms A':>9} {'ms B':>9} {'change':>7}")


def cells(name, x, y):
    """The figures of one matched site (also used by the HTML page)."""
    return [name, x["starts"], y["starts"], ratio(x["starts"], y["starts"]),
            x["commits"], y["commits"], ratio(x["commits"], y["commits"]),
            f"{100 * x['abort_rate']:.1f}%", f"{100 * y['abort_rate']:.1f}%",
            delta_pt(x["abort_rate"], y["abort_rate"]),
            f"{time(x):.2f}", f"{time(y):.2f}", ratio(round(time(x), 2), round(time(y), 2))]


def line(c):
    return (f"{c[0][:40]:<40} {c[1]:>9} {c[2]:>9} {c[3]:>7} {c[4]:>9} {c[5]:>9} {c[6]:>7} "
            f"{c[7]:>8} {c[8]:>8} {c[9]:>8} {c[10]:>9} {c[11]:>9} {c[12]:>7}")


WHY_HEADER = (f"{'site':<40} {'aborts A (main reasons)':<42} {'aborts B (main reasons)':<42} "
              f"{'serial A':>8} {'serial B':>8} {'lost ms A':>9} {'lost ms B':>9}  serialized by")


def reasons(r):
    return f"{r['aborts']}" + (f": {r['top']}" if r["top"] else "")


def _calls(r):
    """The "serialized by" cell of one side: GCC's call, then the run-time one."""
    return "; ".join(c for c in (r.get("start_irrevocable", ""), r["irrevocable_call"]) if c)


def why_cells(name, x, y):
    """Why and where for one matched site: aborts and their main reasons, the starts that ran
    serial (serial attempts + switches to irrevocable), the time lost in aborted attempts, and
    the call that made it irrevocable, at run time or by GCC from the start (B's, else A's)."""
    calls = [c for c in (_calls(y), _calls(x)) if c]
    return [name, reasons(x), reasons(y), x["serial"], y["serial"], f"{x['wasted_ms']:.2f}",
            f"{y['wasted_ms']:.2f}", calls[0] if calls else ""]


def why_line(c):
    return (f"{c[0][:40]:<40} {c[1][:42]:<42} {c[2][:42]:<42} {c[3]:>8} {c[4]:>8} {c[5]:>9} "
            f"{c[6]:>9}  {c[7]}").rstrip()


def reason_cells(name, x, y):
    """Aborts by reason for one matched site, A vs B: a row "all" (every aborted attempt), then
    one row per reason either side saw, the larger count first; [] when neither side aborted.
    Reasons are named as in the text tables (read_conflict, validation, ...)."""
    if not x["aborts"] and not y["aborts"]:
        return []
    seen = [k for k in x["reasons"] if x["reasons"][k] or y["reasons"][k]]
    seen.sort(key=lambda k: -max(x["reasons"][k], y["reasons"][k]))
    return [[name, "all", x["aborts"], y["aborts"], ratio(x["aborts"], y["aborts"])]] + \
        [[name, k, x["reasons"][k], y["reasons"][k], ratio(x["reasons"][k], y["reasons"][k])]
         for k in seen]


def one_side(r):
    return (f"{r['site'][:40]:<40} starts {r['starts']}, commits {r['commits']}, abort "
            f"{100 * r['abort_rate']:.1f}%" + (f" ({r['top']})" if r["top"] else "") +
            (f", serial {r['serial']}" if r["serial"] else "") +
            f", {time(r):.2f} ms ({r['wasted_ms']:.2f} lost)")


def print_compare(res):
    print("A: " + res["a"])
    print("B: " + res["b"])
    print(HEADER)
    for n, x, y in res["matched"]:
        print(line(cells(n, x, y)))
    print("-" * 40)
    print(line(cells("total", *res["totals"])))
    print("\nwhy and where (aborts by reason, serial starts, time lost in aborted attempts):")
    print(WHY_HEADER)
    for n, x, y in res["matched"]:
        print(why_line(why_cells(n, x, y)))
    print("-" * 40)
    print(why_line(why_cells("total", *res["totals"])))
    for side, key in (("A", "only_a"), ("B", "only_b")):
        if res[key]:
            print(f"\nonly in {side}:")
            for r in res[key]:
                print("  " + one_side(r))
    print()

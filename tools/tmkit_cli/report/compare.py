"""`tmkit report A.json B.json --compare`: two profiles side by side. Sites are matched by
function (file:line), or by object+offset when the object has no debug information; sites that
share a name on one side (one line, several call sites) are summed. Changes are B relative to A:
ratios for counts and times, percentage points for the abort rate."""
from . import profiles as report


def by_name(prof, sym):
    sym.site_names(prof["sites"])
    acc = {}
    for s in prof["sites"]:
        a = acc.setdefault(s["name"], {"site": s["site"], "name": s["name"]})
        report.add_site(a, s, prof["counters"])
        a.setdefault("irrevocable_name", s.get("irrevocable_name", ""))
    hz = prof.get("tsc_hz") or 0
    return {name: report.row(s, hz) for name, s in acc.items()}


def compare(a, b, sym):
    ra, rb = by_name(a, sym), by_name(b, sym)
    both = sorted((n for n in ra if n in rb), key=lambda n: -max(time(ra[n]), time(rb[n])))
    only = lambda x, y: sorted((x[n] for n in x if n not in y), key=lambda r: -time(r))  # noqa: E731
    return {"a": report.describe(a), "b": report.describe(b),
            "matched": [(n, ra[n], rb[n]) for n in both],
            "only_a": only(ra, rb), "only_b": only(rb, ra),
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


def one_side(r):
    return (f"{r['site'][:40]:<40} starts {r['starts']}, commits {r['commits']}, abort "
            f"{100 * r['abort_rate']:.1f}%, {time(r):.2f} ms")


def print_compare(res):
    print("A: " + res["a"])
    print("B: " + res["b"])
    print(HEADER)
    for n, x, y in res["matched"]:
        print(line(cells(n, x, y)))
    print("-" * 40)
    print(line(cells("total", *res["totals"])))
    for side, key in (("A", "only_a"), ("B", "only_b")):
        if res[key]:
            print(f"\nonly in {side}:")
            for r in res[key]:
                print("  " + one_side(r))
    print()

"""How evenly each configuration shared the work among its threads (summary.md section).

Every bench program prints min_share: its slowest thread's operations over the mean (1 = even).
A lock that changes hands rarely (glibc's mutex when its owner batches on one CPU, tmkit's
serial lock whose waiters sleep passively) could buy throughput by starving a thread; this
section shows whether it does: per configuration and thread count, the median over cases of
each case's worst repeat, and the case with the lowest.
"""
import statistics


def share_section(res, cases, configs, threads):
    multi = [t for t in threads if t > 1]
    if not multi or not res.share:
        return []
    L = ["## Work shared among threads", "",
         "min_share = the slowest thread's operations over the mean of a timed run (1 = every "
         "thread did the same; near 0 = one thread starved). Each cell: the median over cases "
         "of each case's lowest repeat, and the lowest case.", "",
         "| config | " + " | ".join(f"{t} thr" for t in multi) + " |",
         "|---|" + "---:|" * len(multi)]
    for c in configs:
        cells = []
        for t in multi:
            vals = [(res.min_share((case.name, t, c.name)), case.name) for case in cases]
            vals = [(v, n) for v, n in vals if v is not None]
            if not vals:
                cells.append("-")
                continue
            low = min(vals)
            cells.append(f"{statistics.median(v for v, _ in vals):.2f} "
                         f"(lowest {low[0]:.2f}, {low[1]})")
        L.append(f"| {c.name} | " + " | ".join(cells) + " |")
    L.append("")
    return L

"""The statistics' overhead section of a `tmkit bench --with-stats` summary (summary.py).

On a noisy VM the machine's speed drifts between repeats by more than the overhead measured, so
a ratio of two medians taken over different repeats mostly measures the drift. Here each
repeat's `+stats` run is divided by the same repeat's run without statistics (the two run back
to back, bench.py), and the median of those paired ratios is reported: the drift cancels within
a pair. On 2026-11-23 (AMD EPYC VM, 9 repeats) this moved the 1-thread geometric mean from 0.94
(ratio of medians) to 0.95 and the lowest case from 0.67 to 0.78, with 10-12 instructions added
per transaction everywhere (callgrind).
"""
from .fmt import fmt_ratio, section_head
from .goals import geomean
from .scaling import paired


def paired_ratio(res, key, base_config):
    """Median over the repeats that have both runs of run(key) / run(base) in that repeat."""
    case, threads, _ = key
    return paired(res, key, (case, threads, base_config))


def overhead_section(res, cases, configs, threads):
    """Markdown lines for the +stats configuration against its base, or [] if there is none."""
    stats = next((c.name for c in configs if c.name.endswith("+stats")), None)
    if not stats:
        return []
    base = stats[: -len("+stats")]
    L = section_head(f"Statistics overhead: {stats} / {base}",
                     "Per case: the median over repeats of the paired ratio (each repeat's run "
                     "with statistics divided by the same repeat's run without; below 1 = "
                     "slower with them), and the instructions they add per operation at 1 "
                     "thread (callgrind).",
                     ["case"] + [f"{thr} thr" for thr in threads] + ["added instructions"])
    cols = {thr: [] for thr in threads}
    for case in cases:
        cells = []
        for thr in threads:
            r = paired_ratio(res, (case.name, thr, stats), base)
            cols[thr].append(r)
            cells.append(fmt_ratio(r))
        on, off = res.instr.get((case.name, stats)), res.instr.get((case.name, base))
        cells.append(f"{on - off:+.1f}" if on is not None and off is not None else "-")
        L.append(f"| {case.name} | " + " | ".join(cells) + " |")
    L.append("| **geometric mean** | " + " | ".join(fmt_ratio(geomean(cols[thr]))
                                                   for thr in threads) + " | |")
    L.append("")
    return L

"""Issue 25's measures in a `tmkit bench` summary (summary.py): parallel speed on the read-mostly
cases, with the cap that GCC's TM ABI puts on it, and disjoint writers under orec_eager.

At one thread the default runs GCC's uninstrumented code under the single-thread bias; two
threads that run at once run the instrumented clone. So the default's 2-thread/1-thread ratio is
at most 2 x gl_wt(1) / default(1) (gl_wt: the cheapest instrumented mode, the one adaptive runs
there), whatever the algorithm shares: the section prints that cap beside the ratio
(docs/scaling.md, "Where issue 25 stands"). Every ratio pairs runs of the same repeat, which on
a noisy VM cancels most of the drift between repeats (overhead.py), and reports the median.
"""
import statistics

from .fmt import fmt_ratio, section_head

READ_MOSTLY = ["rbtree-65536-u20", "hashset-262144-u10"]
DISJOINT = "disjoint"


def paired(res, a, b, factor=1.0):
    """Median over repeats that ran both of factor x run(a) / run(b); None without a pair."""
    ra, rb = res.by_repeat.get(a, {}), res.by_repeat.get(b, {})
    ratios = [factor * ra[r] / rb[r] for r in ra if r in rb and rb[r] > 0]
    return statistics.median(ratios) if ratios else None


def scaling_rows(res, default, threads):
    """(label, value) rows: per read-mostly case the default's 2-thread/1-thread ratio, its cap,
    gl_wt's own scaling and the default against the mutex and gl_wt at 2 threads; then disjoint
    writers under orec_eager. Rows whose runs are missing are left out."""
    if not (1 in threads and 2 in threads):
        return []
    rows = []
    for case in READ_MOSTLY:
        d1, d2 = (case, 1, default), (case, 2, default)
        g1, g2 = (case, 1, "tmkit-gl_wt"), (case, 2, "tmkit-gl_wt")
        for label, value in [
                ("default 2 thr / its 1 thr (goal 1.6)", paired(res, d2, d1)),
                ("cap: 2 x gl_wt 1 thr / default 1 thr", paired(res, g1, d1, 2.0)),
                ("gl_wt 2 thr / gl_wt 1 thr", paired(res, g2, g1)),
                ("default / mutex, 2 thr (goal 1.3)", paired(res, d2, (case, 2, "mutex"))),
                ("default / gl_wt, 2 thr", paired(res, d2, g2))]:
            if value is not None:
                rows.append((f"{case}: {label}", value))
    e1, e2 = (DISJOINT, 1, "tmkit-orec_eager"), (DISJOINT, 2, "tmkit-orec_eager")
    value = paired(res, e2, e1)
    if value is not None:
        rows.append((f"{DISJOINT}: orec_eager 2 thr / its 1 thr (goal 1.7)", value))
    return rows


def scaling_section(res, default, threads):
    """Markdown lines of the section, or [] when the run has none of its cases."""
    rows = scaling_rows(res, default, threads)
    if not rows:
        return []
    L = section_head("Parallel speed (issue 25)",
                     "Medians over repeats of ratios within a repeat (ops/s). The cap bounds the "
                     "default's 2-thread/1-thread ratio: one thread runs GCC's uninstrumented "
                     "code, two run its instrumented clone (docs/scaling.md).",
                     ["measure", "ratio"])
    L += [f"| {label} | {fmt_ratio(value)} |" for label, value in rows]
    L.append("")
    return L

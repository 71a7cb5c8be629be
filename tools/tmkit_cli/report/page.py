"""`tmkit report --html OUT.html`: one self-contained page (inline style, plots as PNG data URIs)
with the tables of `tmkit report` and bar charts drawn by report/plot.py under a python that has
matplotlib (paths.python_with: this one, or in the source tree the project venv). Without it the
page has the tables only."""
import html
import json
import os
import subprocess
import sys

from .. import paths
from . import compare as report_compare
from . import profiles as report

MAX_SITES = 15      # sites in each chart (the table lists them all)
MAX_HIST_SITES = 6  # sites in the retries histogram

STYLE = """body{font-family:sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;font-size:13px;margin:.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:2px 6px;text-align:right}
th:first-child,td:first-child,td.l{text-align:left}
tr.total td{font-weight:bold}
img{max-width:100%;margin:.3em 1em .3em 0;vertical-align:top}
p.note{color:#a33}"""


def render(root, specs):
    """[base64 PNG per spec] or (None, why not)."""
    if not specs:
        return [], None
    py, why = paths.python_with(root, "matplotlib", "tmkit report")
    if not py:
        return None, why
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plot.py")
    p = subprocess.run([py, script], input=json.dumps(specs), capture_output=True, text=True)
    if p.returncode != 0:
        return None, "plotting failed: " + (p.stderr.strip().splitlines() or ["?"])[-1]
    return json.loads(p.stdout), None


def section_charts(sec):
    rows = sec["rows"][:MAX_SITES]
    labels = [r["site"] for r in rows]
    if not rows:
        return []
    charts = [
        {"title": "abort rate per site", "labels": labels, "horizontal": True,
         "series": [{"name": "abort rate", "values": [100 * r["abort_rate"] for r in rows]}],
         "value_label": "aborted attempts / started (%)"},
        {"title": "time inside transactions: committed vs wasted (aborted attempts)", "labels": labels,
         "horizontal": True, "stacked": True, "value_label": "ms (sampled)",
         "series": [{"name": "committed", "values": [r["inside_ms"] for r in rows]},
                    {"name": "wasted", "values": [r["wasted_ms"] for r in rows]}]}]
    reasons = [k for k in rows[0]["reasons"] if any(r["reasons"][k] for r in rows)]
    if reasons:
        charts.append({"title": "abort reasons per site", "labels": labels, "horizontal": True,
                       "stacked": True, "value_label": "aborted attempts",
                       "series": [{"name": k, "values": [r["reasons"][k] for r in rows]}
                                  for k in reasons]})
    hist_rows = sorted((r for r in sec["rows"] if r["commits"]), key=lambda r: -r["commits"])
    if hist_rows:
        hist_rows = hist_rows[:MAX_HIST_SITES]
        n = len(report.BUCKETS)
        charts.append({"title": "committed transactions by aborted attempts before the commit",
                       "labels": report.BUCKETS, "log": True, "value_label": "commits (log scale)",
                       "series": [{"name": r["site"], "values": (r["histogram"] + [0] * n)[:n]}
                                  for r in hist_rows]})
    return charts


def compare_charts(res):
    m = res["matched"][:MAX_SITES]
    labels = [n for n, _, _ in m]
    if not m:
        return []
    return [{"title": "abort rate, A vs B", "labels": labels, "horizontal": True,
             "value_label": "aborted attempts / started (%)",
             "series": [{"name": side, "values": [100 * x[i]["abort_rate"] for _, *x in m]}
                        for i, side in enumerate(("A", "B"))]},
            {"title": "time inside transactions (committed + wasted), A vs B", "labels": labels,
             "horizontal": True, "value_label": "ms (sampled)",
             "series": [{"name": side, "values": [report_compare.time(x[i]) for _, *x in m]}
                        for i, side in enumerate(("A", "B"))]}]


def _table(head, body, total_rows=(), left=None):
    """left: the columns aligned left (besides the first); by default the last of a wide table."""
    e = html.escape
    out = ["<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>"]
    for cls, rows in (("", body), (' class="total"', total_rows)):
        for cells in rows:
            lcols = left if left is not None else {len(cells) - 1} if len(cells) > 8 else set()
            out.append(f"<tr{cls}>" + "".join(
                f"<td{' class=l' if i in lcols else ''}>{e(str(c))}</td>"
                for i, c in enumerate(cells)) + "</tr>")
    return "\n".join(out + ["</table>"])


SITE_HEAD = ["site", "starts", "commits", "abort %", "retried %", "max retries", "read avg/max",
             "write avg/max", "ms in", "ms lost", "lost %", "serial", "top aborts / serializing call"]


def _site_cells(r):
    extra = r["top"] + ("; " + report.serializer(r) if report.serializer(r) else "")
    return [r["site"], r["starts"], r["commits"], f"{100 * r['abort_rate']:.1f}",
            f"{100 * r['retried']:.1f}", r["max_retries"], "%.1f/%d" % r["read"], "%.1f/%d" % r["write"],
            f"{r['inside_ms']:.2f}", f"{r['wasted_ms']:.2f}", f"{100 * r['lost']:.1f}", r["serial"],
            extra.lstrip("; ")]


WHY_HEAD = ["site", "aborts A (main reasons)", "aborts B (main reasons)", "serial A", "serial B",
            "lost ms A", "lost ms B", "serialized by"]
REASON_HEAD = ["site", "reason", "aborts A", "aborts B", "change"]


def _compare_reasons(res):
    """The comparison's why and where (the text's second table) and every abort reason of every
    matched site, A vs B with the change."""
    m, tot = res["matched"], res["totals"]
    out = ["<h2>why and where</h2><p>Aborts by reason, serial starts, time lost in aborted "
           "attempts.</p>",
           _table(WHY_HEAD, [report_compare.why_cells(n, x, y) for n, x, y in m],
                  [report_compare.why_cells("total", *tot)], left={1, 2, 7}),
           "<h2>aborts by reason, A vs B</h2>"]
    body = [c for n, x, y in m for c in report_compare.reason_cells(n, x, y)]
    total = report_compare.reason_cells("total", *tot)
    if not body and not total:
        return "\n".join(out + ["<p>No aborts in A or in B.</p>"])
    quiet = sum(1 for _, x, y in m if not x["aborts"] and not y["aborts"])
    note = f"{quiet} matched site{'s' if quiet != 1 else ''} with aborts in neither A nor B not " \
        "listed; " if quiet else ""
    return "\n".join(out + [_table(REASON_HEAD, body, total, left={1}),
                            f"<p>{note}the total counts every site of each profile, matched or not.</p>"])


def _images(pngs):
    return "\n".join(f'<img src="data:image/png;base64,{p}" alt="plot">' for p in pngs)


def write(path, page, root, plots=True):
    """Writes the page; returns the exit status."""
    if "compare" in page:
        res = page["compare"]
        charts = [compare_charts(res)]
    else:
        charts = [section_charts(sec) for sec in page["sections"]]
    pngs, note = render(root, [c for cs in charts for c in cs]) if plots else (None, "--no-plots")
    if pngs is None and plots:
        print(f"tmkit report: {note}; writing {path} without plots", file=sys.stderr)
    e, parts = html.escape, []
    if "compare" in page:
        parts.append(f"<h1>tmkit profile comparison</h1><p>A: {e(res['a'])}<br>B: {e(res['b'])}</p>")
        parts.append(_images(pngs or []))
        parts.append(_table(["site", "starts A", "starts B", "change", "commits A", "commits B",
                             "change", "abort % A", "abort % B", "change", "ms A", "ms B", "change"],
                            [report_compare.cells(n, x, y) for n, x, y in res["matched"]],
                            [report_compare.cells("total", *res["totals"])]))
        parts.append(_compare_reasons(res))
        for side, key in (("A", "only_a"), ("B", "only_b")):
            if res[key]:
                parts.append(f"<h3>only in {side}</h3><ul>" + "".join(
                    f"<li>{e(report_compare.one_side(r))}</li>" for r in res[key]) + "</ul>")
    else:
        parts.append("<h1>tmkit transaction profile</h1>")
        done = 0
        for sec, cs in zip(page["sections"], charts):
            parts.append(f"<h2>{e(sec['title'])}</h2>")
            parts.append(_images((pngs or [])[done:done + len(cs)]))
            done += len(cs)
            procs = sec["processes"] if len(sec["processes"]) > 1 else []
            parts.append(_table(SITE_HEAD, [_site_cells(r) for r in sec["rows"]],
                                [_site_cells(t) for t in procs + [sec["total"]]]))
    if pngs is None:
        parts.insert(1, f'<p class="note">Plots not drawn: {e(note)}.</p>')
    doc = (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>tmkit report</title>"
           f"<style>{STYLE}</style></head><body>\n" + "\n".join(parts) + "\n</body></html>\n")
    try:
        with open(path, "w") as f:
            f.write(doc)
    except OSError as err:
        print(f"tmkit report: cannot write {path}: {err.strerror}", file=sys.stderr)
        return 1
    print(f"wrote {path}" + ("" if pngs else " (no plots)"), file=sys.stderr)
    return 0

"""Plots for `tmkit report --html`: run by the project venv's python (scripts/venv.sh installs
matplotlib).

usage: plot.py < CHARTS.json
CHARTS.json is a list of bar charts: {"title", "labels": [...], "series": [{"name", "values"}],
"stacked": bool, "horizontal": bool, "log": bool, "value_label": str}. Prints a JSON list with
one base64-encoded PNG per chart, in order.
"""
import base64
import io
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def chart(spec):
    labels, series = spec["labels"], spec["series"]
    horizontal, stacked = spec.get("horizontal", False), spec.get("stacked", False)
    n = max(len(labels), 1)
    size = (8.0, max(2.2, 0.32 * n + 1.4)) if horizontal else (max(6.0, 0.55 * n + 2.5), 4.0)
    fig, ax = plt.subplots(figsize=size)
    pos = list(range(len(labels)))
    width = 0.8 if stacked else 0.8 / max(len(series), 1)
    base = [0.0] * len(labels)
    for j, s in enumerate(series):
        vals = [float(v) for v in s["values"]]
        off = [p if stacked else p - 0.4 + width * (j + 0.5) for p in pos]
        kw = {"label": s["name"]}
        if horizontal:
            ax.barh(off, vals, width, left=base if stacked else None, **kw)
        else:
            ax.bar(off, vals, width, bottom=base if stacked else None, **kw)
        if stacked:
            base = [b + v for b, v in zip(base, vals)]
    ticks = (ax.set_yticks, ax.set_yticklabels) if horizontal else (ax.set_xticks, ax.set_xticklabels)
    ticks[0](pos)
    ticks[1]([lb if len(lb) <= 40 else lb[:39] + "…" for lb in labels], fontsize=8,
             **({} if horizontal else {"rotation": 30, "ha": "right"}))
    if horizontal:
        ax.invert_yaxis()   # first label on top, as in the table
    if spec.get("log"):
        (ax.set_xscale if horizontal else ax.set_yscale)("log")
    (ax.set_xlabel if horizontal else ax.set_ylabel)(spec.get("value_label", ""))
    ax.grid(axis="x" if horizontal else "y", linewidth=0.3)
    if len(series) > 1:
        ax.legend(fontsize=7, frameon=False)
    ax.set_title(spec["title"], fontsize=10)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def main():
    specs = json.load(sys.stdin)
    print(json.dumps([chart(s) for s in specs]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

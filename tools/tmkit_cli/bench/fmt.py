"""Formatting helpers shared by the summary's sections (summary.py, overhead.py)."""


def fmt_ratio(x):
    return "-" if x is None else f"{x:.2f}"


def section_head(title, text, columns):
    """A summary section's first lines: title, text, and the head of its table (the first
    column left-aligned, the others right-aligned)."""
    return [f"## {title}", "", text, "",
            "| " + " | ".join(columns) + " |", "|---|" + "---:|" * (len(columns) - 1)]

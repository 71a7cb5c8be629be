"""`tmkit report PROFILE.json...`: per-site transaction profiles (TMKIT_STATS, docs/stats.md) as a
table, sites mapped to function (file:line) with the objects' debug information (addr2line) and
sorted by wasted time; --merge sums the profiles of one run (PATH and PATH.<pid> of forked
children), --compare puts two profiles side by side, --html writes one self-contained page."""
import argparse
import os
import sys

from . import compare, page as html_page
from .profiles import ProfileError, Symbolizer, load, merge, print_section, section, with_children


def run(argv, root=None):
    ap = argparse.ArgumentParser(prog="tmkit report", description=__doc__)
    ap.add_argument("profiles", nargs="+", metavar="PROFILE.json")
    ap.add_argument("--merge", action="store_true",
                    help="sum the profiles (and each PROFILE.json.<pid> beside them) into one table")
    ap.add_argument("--compare", action="store_true",
                    help="compare two profiles: sites matched by function (file:line), changes shown")
    ap.add_argument("--html", metavar="OUT.html", help="also write a self-contained HTML page with plots")
    ap.add_argument("--no-plots", action="store_true", help="with --html: a page without the plots")
    args = ap.parse_args(argv)
    if args.compare and args.merge:
        ap.error("--compare and --merge cannot be combined")
    if args.compare and len(args.profiles) != 2:
        ap.error(f"--compare needs exactly two profiles ({len(args.profiles)} given)")
    sym = Symbolizer()
    try:
        profs = [load(p) for p in (with_children(args.profiles) if args.merge else args.profiles)]
    except ProfileError as e:
        print(f"tmkit report: {e}", file=sys.stderr)
        return 1
    try:
        if args.compare:
            result = compare.compare(profs[0], profs[1], sym)
            compare.print_compare(result)
            page = {"compare": result}
        else:
            sections = [section(p, sym) for p in ([merge(profs)] if args.merge else profs)]
            for sec in sections:
                print_section(sec)
            page = {"sections": sections}
        sys.stdout.flush()
    except BrokenPipeError:   # `tmkit report ... | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    if args.html:
        return html_page.write(args.html, page, root, plots=not args.no_plots)
    return 0

"""tmkit(1), one page per sub-command (tmkit-run(1), ...) and per experiment of `tmkit bench`
with its own options (tmkit-bench-webcache(1), ...), written by help2man (Debian's
help2man package) from the command's own --help, so a page says what --help says. The
sub-commands and their one-line summaries come from the command's parser (tmkit_cli.main)."""
import argparse
import ast
import os
import stat
import subprocess
import sys
import tempfile

from roff import esc


def commands(tools):
    """[(name, one-line help)] of `tmkit`, in --help's order."""
    sys.path.insert(0, tools)
    from tmkit_cli import main as cli
    p = cli.parser(os.path.dirname(tools))
    sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
    return [(a.dest, a.help) for a in sub._choices_actions]


def experiments(tools):
    """[(name, summary)] of `tmkit bench NAME`'s own runners (tmkit_cli.main.RAW_BENCH), the
    summary from each module's docstring ("`tmkit bench NAME`: SUMMARY. ...")."""
    from tmkit_cli import main as cli
    out = []
    for name, module in cli.RAW_BENCH.items():
        path = os.path.join(tools, *module.split(".")) + ".py"
        doc = ast.get_docstring(ast.parse(open(path).read())) or name
        first = doc.split("\n")[0].split("`: ", 1)[-1]
        out.append((name, first.split(". ")[0].rstrip(".,")))
    return out


def _include(path, see, extra=""):
    with open(path, "w") as f:
        f.write(extra)
        f.write("[SEE ALSO]\n" + ",\n".join(f".BR {esc(n)} ({s})" for n, s in see) + "\n")


def help2man(prog, name, summary, version, include, out):
    subprocess.run(["help2man", "--no-info", "--no-discard-stderr", "--section=1",
                    f"--name={summary}", f"--version-string={version}",
                    f"--include={include}", f"--output={out}", prog], check=True,
                   env=dict(os.environ, COLUMNS="1000"))  # usage on one line


def wrapper(tmp, page, tmkit, args):
    """A script named after the page (help2man names the page after its program) that runs
    `tmkit ARGS --help`; argparse writes "usage:", help2man takes "Usage:" as the synopsis, and
    a second usage line (tmkit advise's) as "or:"."""
    path = os.path.join(tmp, page)
    with open(path, "w") as f:
        f.write(f'#!/bin/sh\n"{tmkit}" {args} "$@" | sed -e "s/^usage:/Usage:/" '
                f"-e '2s/^  *tmkit /  or: tmkit /'\n")
    os.chmod(path, stat.S_IRWXU)
    return path


def pages(tmkit, tools, version, outdir):
    """Writes OUTDIR/tmkit.1 and OUTDIR/tmkit-NAME.1; returns their names."""
    cmds = commands(tools)
    os.makedirs(outdir, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        exps = experiments(tools)
        see = [(f"tmkit-{n}", 1) for n, _ in cmds] + [("tmkit", 7)]
        inc = os.path.join(tmp, "tmkit.h2m")
        _include(inc, see, "[ENVIRONMENT]\nThe runtime's TMKIT_* variables: \\fBtmkit\\fR(7).\n")
        help2man(wrapper(tmp, "tmkit", tmkit, ""), "tmkit",
                 "transactional memory for gcc -fgnu-tm programs", version, inc,
                 os.path.join(outdir, "tmkit.1"))
        written.append("tmkit.1")
        for name, summary in cmds:
            more = [(f"tmkit-bench-{e}", 1) for e, _ in exps] if name == "bench" else []
            _include(inc, [("tmkit", 1)] + [s for s in see if s[0] != f"tmkit-{name}"] + more)
            help2man(wrapper(tmp, f"tmkit-{name}", tmkit, name), name, summary, version, inc,
                     os.path.join(outdir, f"tmkit-{name}.1"))
            written.append(f"tmkit-{name}.1")
        for name, summary in exps:  # tmkit bench NAME: tmkit-bench-NAME(1)
            _include(inc, [("tmkit", 1), ("tmkit-bench", 1)])
            help2man(wrapper(tmp, f"tmkit-bench-{name}", tmkit, f"bench {name}"), name, summary,
                     version, inc, os.path.join(outdir, f"tmkit-bench-{name}.1"))
            written.append(f"tmkit-bench-{name}.1")
    return written

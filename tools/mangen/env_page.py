"""tmkit(7): the runtime's TMKIT_* environment variables, written from the runtime's own table
(runtime/core/config.c, printed by `tmkit-info --config`), so the page lists exactly what the
library accepts: name, values, default and the table's help text."""
import subprocess

from roff import esc, header, inline, para, see_also

INTRO = [
    "tmkit is a drop-in replacement for GCC's transactional-memory runtime (libitm.so.1): a "
    "program built with `gcc -fgnu-tm` runs on it unchanged, started by `tmkit run` or found "
    "through the library path.",
    "The runtime reads these variables once, when the library loads. An unknown TMKIT_* name or "
    "a malformed value stops the program at start (exit status 2) with a message listing the "
    "accepted names or values: a typo never silently runs the wrong algorithm. Otherwise the "
    "library prints nothing and writes no file it was not asked for.",
]


def values_text(values):
    if values == "NAME":
        return "a segment name (1 to 64 characters from A-Z a-z 0-9 . _ -)"
    if values == "PATH|-":
        return "a file path, or - for standard error"
    if "|" in values:
        return ", ".join(values.split("|"))
    if "-" in values:
        lo, hi = values.split("-", 1)
        return f"an integer from {lo} to {hi}"
    return values


def page(info, version):
    rows = [line.split("\t", 3) for line in subprocess.run(
        [info, "--config"], capture_output=True, text=True, check=True,
        env={}).stdout.splitlines() if line]
    out = [header("tmkit", 7, version, "tmkit", "environment variables of the tmkit "
                  "transactional-memory runtime"), ".SH DESCRIPTION\n"]
    out += [para(p) for p in INTRO]
    out.append(".SH ENVIRONMENT\n")
    for name, values, default, text in rows:
        out.append(f".TP\n.B {esc(name)}\n{inline(text)}.\n.br\n"
                   f"Values: {esc(values_text(values))}. "
                   f"Default: {esc(default) if default else 'unset'}.\n")
    out.append(".SH EXAMPLES\n")
    out.append(".PP\n.RS 4\n.nf\n" + esc("TMKIT_ALGO=norec TMKIT_STATS=prof.json tmkit run ./server\n"
               "TMKIT_STATS=- LD_LIBRARY_PATH=/usr/local/lib/tmkit ./server") + "\n.fi\n.RE\n")
    out.append(see_also(["tmkit(1)", "tmkit-run(1)", "tmkit-report(1)", "tmkit-stat(1)"]))
    return "".join(out)

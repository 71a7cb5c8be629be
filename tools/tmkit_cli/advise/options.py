"""`tmkit advise` options: the parser alone, importable without libclang (`tmkit advise --help`
and the manual page, tools/mangen, need no front end)."""
import argparse

USAGE = """tmkit advise [options] (-p BUILD_DIR | --compdb FILE) [FILES...]
       tmkit advise [options] FILE.c... [-- COMPILER FLAGS]"""


def parser():
    p = argparse.ArgumentParser(
        prog="tmkit advise", usage=USAGE,
        description="Find the critical sections of a lock-based C program, what blocks each one "
                    "from becoming a GCC transaction (-fgnu-tm), the lock order, the lock groups "
                    "(colors) and LockSTM classes (pure / hybrid / non-revocable); optionally rewrite them.")
    p.add_argument("files", nargs="*", help="C sources (with -p: restrict the database to these)")
    p.add_argument("-p", dest="build", metavar="DIR", help="directory with compile_commands.json")
    p.add_argument("--compdb", metavar="FILE", help="a compile_commands.json")
    p.add_argument("--entry", metavar="TEXT",
                   help="use only database entries whose command or output contains TEXT (a "
                        "target's name, e.g. webcache-lock, when one source is built several ways)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--patch", action="store_true",
                   help="print a unified diff that turns eligible sections into transactions")
    p.add_argument("--verify", action="store_true",
                   help="apply the rewrite in a scratch directory, compile it with gcc -fgnu-tm "
                        "and compare GCC's view with the report (exit 1 on disagreement)")
    p.add_argument("--apply", metavar="OUT",
                   help="write the transactional version of the source tree to OUT (a new or "
                        "empty directory): a copy without build products, the rewrite applied, "
                        "and OUT/tmkit-build.env with the flags for the program's own build")
    p.add_argument("--group-arrays", action="store_true",
                   help="with --apply: a lock array that some sections keep may become one lock "
                        "group for the whole array (default: it stays a mutex array; see "
                        "docs/advise.md, lock groups)")
    p.add_argument("--src", metavar="DIR",
                   help="with --apply: the source tree to copy (default: the deepest directory "
                        "holding every analysed source)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report (or diff) to FILE")
    return p

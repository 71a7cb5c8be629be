"""`tmkit advise` entry point: make sure libclang is importable, then hand over to cli.main.

In the source tree bin/tmkit runs under the system python3, which may have no libclang; the
analysis then needs the project venv (.venv, pip libclang pinned by scripts/venv.sh). run()
re-executes bin/tmkit under the venv's python, creating the venv first when it is missing.
TMKIT_ADVISE_REEXEC stops a second re-exec. An installed tmkit uses its own python, whose
package declares the binding (Debian: python3-clang-19). --help needs no front end.
"""
import os
import subprocess
import sys

from .. import paths


def _have_clang():
    try:
        import clang.cindex  # noqa: F401
        return True
    except ImportError:
        return False


def _asks_help(argv):
    head = argv[:argv.index("--")] if "--" in argv else argv
    return "-h" in head or "--help" in head


def run(argv, root):
    if _asks_help(argv):
        from .options import parser
        parser().print_help()
        return 0
    if _have_clang():
        from .cli import main
        return main(argv, root)
    if paths.installed or os.environ.get("TMKIT_ADVISE_REEXEC"):
        print("tmkit advise: python module clang.cindex is not importable by "
              f"{sys.executable} (" + ("Debian: python3-clang-19" if paths.installed else
                                        "pip libclang: run scripts/venv.sh") + ")",
              file=sys.stderr)
        return 2
    py = os.path.join(root, ".venv", "bin", "python")
    probe = [py, "-c", "import clang.cindex"]
    if not (os.access(py, os.X_OK) and subprocess.run(probe, capture_output=True).returncode == 0):
        venv = os.path.join(root, "scripts", "venv.sh")
        if subprocess.run(["sh", venv]).returncode != 0 or not os.access(py, os.X_OK):
            print("tmkit advise: could not set up the Python venv with libclang "
                  "(scripts/venv.sh failed; see its message above)", file=sys.stderr)
            return 2
    env = dict(os.environ, TMKIT_ADVISE_REEXEC="1")
    tmkit = os.path.join(root, "bin", "tmkit")
    os.execve(py, [py, tmkit, "advise"] + list(argv), env)

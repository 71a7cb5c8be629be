"""`tmkit advise` entry point: make sure libclang is importable, then hand over to cli.main.

bin/tmkit runs under the system python3, which has no libclang; the analysis needs the project
venv (.venv, pip libclang pinned by scripts/venv.sh). run() re-executes bin/tmkit under the venv's
python, creating the venv first when it is missing. TMKIT_ADVISE_REEXEC stops a second re-exec.
"""
import os
import subprocess
import sys


def _have_clang():
    try:
        import clang.cindex  # noqa: F401
        return True
    except ImportError:
        return False


def run(argv, root):
    if _have_clang():
        from .cli import main
        return main(argv, root)
    if os.environ.get("TMKIT_ADVISE_REEXEC"):
        print("tmkit advise: python module clang.cindex (pip libclang) is not importable by "
              f"{sys.executable}; run scripts/venv.sh", file=sys.stderr)
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

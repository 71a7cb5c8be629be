"""Where tmkit's files are, and facts read from the runtime.

Two layouts, one code: the source tree (ROOT/bin/tmkit, the build in ROOT/build) and an
installation (PREFIX/bin/tmkit, the layout under PREFIX recorded at install time in
tmkit_cli/installed.py: cmake/install.cmake writes it). ROOT is the tree or the prefix; both
are found from the launcher's own location, so a DESTDIR staging copy works as well."""
import importlib.util
import os
import re
import subprocess
import sys

try:
    from . import installed  # only in an installed copy
except ImportError:
    installed = None


def builddir(root):
    return os.path.join(root, "build")


def libdir(root):
    """The directory of tmkit's libitm.so.1."""
    if installed:
        return os.path.join(root, installed.LIBDIR)
    return os.path.join(builddir(root), "lib")


def bindir(root):
    """The build's programs (benchmarks, apps): source tree only."""
    return os.path.join(builddir(root), "bin")


def helper(root, name):
    """tmkit-info, tmkit-shmdump: build/bin in the tree, next to the library when installed."""
    return os.path.join(libdir(root) if installed else bindir(root), name)


def includedir(root):
    return os.path.join(root, installed.INCLUDEDIR if installed else "include")


def need_tree(root, what):
    """Exits with a message when `what` needs the source tree and this copy is installed."""
    if installed:
        sys.exit(f"tmkit {what}: needs tmkit's source tree (its programs and experiments are "
                 "built there, not installed); run it as bin/tmkit in a checkout")


def python_with(root, module, who):
    """(interpreter that can import `module`, None) or (None, why not). Installed: this python
    (the package declares its dependencies). Source tree: this python, else the project venv
    (.venv, made by scripts/venv.sh when missing)."""
    if importlib.util.find_spec(module.split(".")[0]) is not None:
        return sys.executable, None
    if installed:
        return None, (f"python module {module} is not importable by {sys.executable} "
                      f"(Debian: {DEBIAN_PACKAGE.get(module, 'python3-' + module)})")
    py = os.path.join(root, ".venv", "bin", "python")
    has = lambda: os.access(py, os.X_OK) and subprocess.run(  # noqa: E731
        [py, "-c", f"import {module}"], capture_output=True).returncode == 0
    if has():
        return py, None
    print(f"{who}: {module} missing, setting up .venv (scripts/venv.sh)", file=sys.stderr)
    p = subprocess.run(["sh", os.path.join(root, "scripts", "venv.sh")], capture_output=True,
                       text=True)
    if has():
        return py, None
    return None, f"{module} is not available in .venv (scripts/venv.sh: " + \
        ((p.stderr.strip().splitlines() or ["failed"])[-1]) + ")"


# The Debian packages of the CLI's Python dependencies (the .deb's Depends: packaging/debian).
DEBIAN_PACKAGE = {"matplotlib": "python3-matplotlib", "clang.cindex": "python3-clang-19"}


def _clean_env():
    return {k: v for k, v in os.environ.items() if not k.startswith("TMKIT_")}


def _info(root, *args):
    info = helper(root, "tmkit-info")
    if not os.path.exists(info):
        sys.exit(f"tmkit: {info} is missing; run `make build` first")
    return subprocess.run([info, *args], capture_output=True, text=True, env=_clean_env(),
                          check=True).stdout


def algorithms(root):
    """[(name, summary)] from the runtime's own table, default first."""
    return [tuple(line.split("\t", 1)) for line in _info(root).splitlines() if line]


def config_table(root):
    """[(name, values, default, help)]: the runtime's TMKIT_* variables (core/config.c)."""
    return [tuple(line.split("\t", 3)) for line in _info(root, "--config").splitlines() if line]


def library_build(lib):
    """The build string the library exports as tmkit_version, read from the file itself."""
    try:
        with open(lib, "rb") as f:
            m = re.search(rb"tmkit \d+\.\d+\.\d+[^\0]*", f.read())
    except OSError:
        return None
    return m.group(0).decode(errors="replace") if m else None

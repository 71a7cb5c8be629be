"""`tmkit --version` and `tmkit run --version`: the command's version, the runtime it runs
programs on (the build string that library exports as tmkit_version, read from the file) and the
algorithms that runtime offers."""
import argparse
import os

from . import paths


def text(root):
    lib = os.path.join(paths.libdir(root), "libitm.so.1")
    build = paths.library_build(lib)
    if paths.installed:
        version = paths.installed.VERSION
    else:  # the source tree: the version the build compiled in (CMakeLists.txt's project())
        version = build.split()[1] if build else "unknown (not built: run `make build`)"
    lines = [f"tmkit {version}",
             f"runtime: {lib}: " + (build or "missing or not a tmkit build")]
    if build:
        names = [n for n, _ in paths.algorithms(root)]
        lines.append("algorithms: " + ", ".join(n + (" (default)" if i == 0 else "")
                                                for i, n in enumerate(names)))
    return "\n".join(lines)


class Action(argparse.Action):
    """--version for a parser: prints text(root) and exits."""

    def __init__(self, option_strings, dest, root=None, **kw):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print the version, the runtime's build and its algorithms, "
                              "then exit", **kw)
        self.root = root

    def __call__(self, parser, namespace, values, option_string=None):
        print(text(self.root))
        parser.exit()

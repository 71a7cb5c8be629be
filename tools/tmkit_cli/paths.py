"""Where the build puts things, and facts read from the built runtime."""
import os
import subprocess
import sys


def builddir(root):
    return os.path.join(root, "build")


def libdir(root):
    return os.path.join(builddir(root), "lib")


def bindir(root):
    return os.path.join(builddir(root), "bin")


def algorithms(root):
    """[(name, summary)] from the runtime's own table, default first."""
    info = os.path.join(bindir(root), "tmkit-info")
    if not os.path.exists(info):
        sys.exit(f"tmkit: {info} is missing; run `make build` first")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TMKIT_")}
    out = subprocess.run([info], capture_output=True, text=True, env=env, check=True).stdout
    return [tuple(line.split("\t", 1)) for line in out.splitlines() if line]

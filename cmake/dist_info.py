#!/usr/bin/env python3
"""Writes the installed package's metadata (OUT/tmkit-VERSION.dist-info/) from tools/pyproject.toml,
so that its declared dependencies are what importlib.metadata and pip see.
Usage: dist_info.py PYPROJECT VERSION OUT"""
import os
import shutil
import sys
import tomllib


def main(pyproject, version, out):
    with open(pyproject, "rb") as f:
        proj = tomllib.load(f)["project"]
    lines = ["Metadata-Version: 2.1", f"Name: {proj['name']}", f"Version: {version}",
             f"Summary: {proj['description']}", f"Requires-Python: {proj['requires-python']}"]
    lines += [f"Requires-Dist: {d}" for d in proj.get("dependencies", [])]
    for extra, deps in proj.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f"Requires-Dist: {d}; extra == \"{extra}\"" for d in deps]
    shutil.rmtree(out, ignore_errors=True)
    d = os.path.join(out, f"{proj['name']}-{version}.dist-info")
    os.makedirs(d)
    for name, text in (("METADATA", "\n".join(lines)), ("INSTALLER", "tmkit-cmake"),
                       ("top_level.txt", "tmkit_cli")):
        with open(os.path.join(d, name), "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])

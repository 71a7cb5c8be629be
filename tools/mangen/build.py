#!/usr/bin/env python3
"""Writes tmkit's manual pages into OUT/man1, man3, man7 (cmake/man.cmake runs it at build time;
`make install` and `make deb` install the result):
  section 1  tmkit(1) and tmkit-COMMAND(1), from --help (section1.py, help2man)
  section 3  the header API, from the headers' comments (api_pages.py)
  section 7  tmkit(7), the TMKIT_* variables, from the runtime's table (env_page.py)
Usage: build.py --tmkit BIN/TMKIT --info TMKIT-INFO --include INCLUDE_DIR --version V --out OUT"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import api_pages  # noqa: E402
import env_page  # noqa: E402
import section1  # noqa: E402


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for opt in ("--tmkit", "--info", "--include", "--version", "--out"):
        ap.add_argument(opt, required=True)
    a = ap.parse_args()
    tools = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for s in ("man1", "man3", "man7"):
        os.makedirs(os.path.join(a.out, s), exist_ok=True)
    section1.pages(a.tmkit, tools, a.version, os.path.join(a.out, "man1"))
    for name in api_pages.PAGES:
        write(os.path.join(a.out, "man3", f"{name}.3"), api_pages.page(name, a.include, a.version))
        for alias, text in api_pages.aliases(name).items():
            write(os.path.join(a.out, "man3", f"{alias}.3"), text)
    write(os.path.join(a.out, "man7", "tmkit.7"), env_page.page(a.info, a.version))
    return 0


if __name__ == "__main__":
    sys.exit(main())

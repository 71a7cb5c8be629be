#!/usr/bin/env python3
"""The advisor's list of the libc functions include/tmkit.h wraps (advise/libc.py TMKIT_WRAPS:
its blockers for these say `#include <tmkit.h>`) is the header's own: every
transaction_wrap(NAME) that `gcc -fgnu-tm -E` finds in tmkit.h, less tmkit's own functions
(tmkit_*) and glibc internals (__builtin_strlen, __ctype_*_loc, which the ctype macros call).

usage: libc_list.py ROOT"""
import os
import re
import subprocess
import sys


def main():
    root = sys.argv[1]
    sys.path.insert(0, os.path.join(root, "tools"))
    from tmkit_cli.advise import libc
    r = subprocess.run(["gcc", "-fgnu-tm", "-I", os.path.join(root, "include"), "-E", "-x", "c", "-"],
                       input="#include <tmkit.h>\n", capture_output=True, text=True)
    if r.returncode != 0:
        print("FAIL: gcc -E of tmkit.h:\n" + r.stderr)
        return 1
    wrapped = {n for n in re.findall(r"transaction_wrap\s*\(\s*(\w+)\s*\)", r.stdout)
               if not n.startswith(("tmkit_", "__"))}
    if len(wrapped) < 20:
        print(f"FAIL: only {sorted(wrapped)} found in the preprocessed header")
        return 1
    missing, extra = wrapped - libc.TMKIT_WRAPS, libc.TMKIT_WRAPS - wrapped
    if missing or extra:
        print(f"FAIL: tmkit.h wraps but advise/libc.py does not list: {sorted(missing)}; "
              f"listed but not wrapped: {sorted(extra)}")
        return 1
    for name in ("strlen", "__builtin_strlen", "__snprintf_chk"):
        if not libc.wrapped_by_tmkit(name):
            print(f"FAIL: {name} not recognized as wrapped")
            return 1
    if libc.wrapped_by_tmkit("printf") or libc.wrapped_by_tmkit("sprintf"):
        print("FAIL: printf/sprintf are not wrapped")
        return 1
    print(f"ok: {len(wrapped)} wrapped functions agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())

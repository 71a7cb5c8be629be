"""`tmkit system-libitm status|enable|disable`: make tmkit's libitm.so.1 the one every program
built with -fgnu-tm loads, without `tmkit run` (opt-in, off by default, reversible).

enable writes /etc/ld.so.conf.d/00-tmkit.conf naming tmkit's library directory and runs
ldconfig: the dynamic linker's cache then resolves libitm.so.1 to tmkit's (ld.so.conf.d's files
are read in name order and the first directory listed wins over the system's). disable removes
that file and runs ldconfig again; status says which libitm.so.1 the cache resolves. GCC's
libitm stays installed and untouched throughout; removing the tmkit package disables it too."""
import argparse
import os
import subprocess
import sys

from . import paths

CONF = "00-tmkit.conf"
MARK = "# written by `tmkit system-libitm enable`; undo: tmkit system-libitm disable"
LDCONFIG = "/sbin/ldconfig"


def resolved():
    """The path the linker cache gives for libitm.so.1, or None."""
    try:
        out = subprocess.run([LDCONFIG, "-p"], capture_output=True, text=True).stdout
    except OSError:
        return None
    for line in out.splitlines():
        if line.strip().startswith("libitm.so.1 ") and "=>" in line:
            return line.split("=>", 1)[1].strip()
    return None


def _ldconfig(args):
    if not args.no_ldconfig and subprocess.run([LDCONFIG]).returncode != 0:
        print("tmkit system-libitm: ldconfig failed", file=sys.stderr)
        return 1
    return 0


def run(argv, root):
    ap = argparse.ArgumentParser(prog="tmkit system-libitm", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=["status", "enable", "disable"],
                    help="status: which libitm.so.1 programs load; enable: tmkit's; disable: "
                         "the system's again")
    ap.add_argument("--conf-dir", default="/etc/ld.so.conf.d", metavar="DIR",
                    help="where the linker's configuration lives (default /etc/ld.so.conf.d)")
    ap.add_argument("--no-ldconfig", action="store_true",
                    help="write or remove the file only (for a staged root; run ldconfig later)")
    args = ap.parse_args(argv)
    conf = os.path.join(args.conf_dir, CONF)
    lib = paths.libdir(root)
    ours = os.path.exists(conf) and MARK in open(conf).read()
    if args.action == "status":
        print(f"{conf}: " + ("present: tmkit is the system libitm" if ours else "absent: off"))
        print(f"libitm.so.1 => {resolved() or '(not in the linker cache)'}")
        return 0
    try:
        if args.action == "enable":
            if not os.path.exists(os.path.join(lib, "libitm.so.1")):
                print(f"tmkit system-libitm: {lib}/libitm.so.1 is missing", file=sys.stderr)
                return 2
            with open(conf, "w") as f:
                f.write(f"{MARK}\n{os.path.realpath(lib)}\n")
        elif ours:
            os.unlink(conf)
        elif os.path.exists(conf):
            print(f"tmkit system-libitm: {conf} was not written by tmkit; left alone",
                  file=sys.stderr)
            return 1
    except OSError as e:
        print(f"tmkit system-libitm: {conf}: {e.strerror} (run it as root)", file=sys.stderr)
        return 1
    return _ldconfig(args)

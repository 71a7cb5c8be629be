"""tmlib.py: what memcached_load.py and zstd_speed.py share: their common options, their
progress lines and the runtime a benchmark of a transactional program runs on."""
import os
import shutil
import subprocess
import sys


def say(msg):
    print(msg, flush=True)


def common_args(a, out_dir):
    """The options both scripts take, normalised: ROOT and BUILD absolute, --threads and --algos
    as lists, --out defaulting to BUILD/advise-real/OUT_DIR."""
    a.root, a.build = os.path.abspath(a.root), os.path.abspath(a.build)
    a.threads = [int(x) for x in a.threads.split(",") if x]
    a.algos = [x for x in a.algos.split(",") if x]
    a.out = os.path.abspath(a.out or os.path.join(a.build, "advise-real", out_dir))
    return a


def snapshot(build, out, exe):
    """A copy of BUILD/lib/libitm.so.1 in OUT/lib (so a rebuild meanwhile does not change the
    runtime under the runs), checked to be the one `exe` loads with LD_LIBRARY_PATH at it;
    returns the environment that makes it so. Exits naming the library it loads otherwise."""
    lib = os.path.join(out, "lib")
    os.makedirs(lib, exist_ok=True)
    shutil.copyfile(os.path.join(build, "lib", "libitm.so.1"), os.path.join(lib, "libitm.so.1"))
    env = dict(os.environ, LD_LIBRARY_PATH=lib)
    ldd = subprocess.run(["ldd", exe], env=env, capture_output=True, text=True).stdout
    got = next((l.split("=>")[1].split("(")[0].strip() for l in ldd.splitlines() if "libitm" in l), "")
    if os.path.realpath(got) != os.path.realpath(os.path.join(lib, "libitm.so.1")):
        sys.exit(f"{exe} loads {got or 'no libitm'}, not {lib}/libitm.so.1")
    return env, lib

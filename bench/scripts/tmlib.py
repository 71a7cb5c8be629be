"""tmlib.py: the runtime a benchmark of a transactional program runs on, shared by
memcached_load.py and zstd_speed.py."""
import os
import shutil
import subprocess
import sys


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

"""The floor under any instrumented access: build/bin/callfloor (bench/programs/callfloor.c)
times micro's read and write loops with each access a PLT call of a function that does nothing
but the access, which is what a -fgnu-tm program pays to reach _ITM_RU8 or _ITM_WU8 before the
barrier does any work. `tmkit bench` runs it with the micro suite and prints it beside the
per-access costs, so a goal below it reads as what it is: below any ABI barrier."""
import os
import statistics

from .. import paths
from .hang import run_limited


def measure_floor(root, repeats, log):
    """{"load_ns", "store_ns", "runs"}: medians over `repeats` runs, or None if it failed."""
    exe = os.path.join(paths.bindir(root), "callfloor")
    if not os.path.exists(exe):
        log("  build/bin/callfloor missing: no call floor")
        return None
    loads, stores = [], []
    for _ in range(repeats):
        rc, out, err = run_limited([exe], dict(os.environ), 60)
        fields = dict(f.split("=", 1) for f in out.split() if "=" in f)
        try:
            if rc != 0:
                raise ValueError(err.strip() or f"exit {rc}")
            loads.append(float(fields["load_ns"]))
            stores.append(float(fields["store_ns"]))
        except (KeyError, ValueError) as e:
            log(f"  callfloor failed: {e}")
            return None
    return {"load_ns": statistics.median(loads), "store_ns": statistics.median(stores),
            "runs": repeats}


def floor_lines(floor):
    """The summary's sentence about the floor (empty without a measurement)."""
    if not floor:
        return []
    return [f"Floor under any barrier (`build/bin/callfloor`, median of {floor['runs']} runs): "
            f"a PLT call of a function that only loads costs {floor['load_ns']:.2f} ns per "
            f"access, one that only stores {floor['store_ns']:.2f} ns, measured like the rows "
            "above (slope between 16 and 64 accesses).", ""]

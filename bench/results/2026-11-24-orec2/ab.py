import sys, subprocess, statistics, os
sys.path.insert(0, "/work/main/tools")
from tmkit_cli.bench.cli import SUITES
cases = [c for s in ("micro", "ds", "bank", "lru", "kv") for c in SUITES[s]]
extra = [("prime", "prime-tm", ["--sync", "group", "--status-us", "1000000"])]
R = int(sys.argv[1]) if len(sys.argv) > 1 else 3
res = {}
def val(out):
    d = dict(kv.split("=", 1) for kv in out.split() if "=" in kv)
    return float(d["ops_per_s"]) if "ops_per_s" in d else 1.0 / float(d["seconds"])
for r in range(R):
    for c in cases + extra:
        if len(c) == 3:
            name, prog, args = c
        else:
            name, prog, args = c.name, c.prog + "-tm", c.args
        for lib in (["lib2", "lib4"] if r % 2 == 0 else ["lib4", "lib2"]):
            env = dict(os.environ, LD_LIBRARY_PATH=f"/tmp/ab/{lib}")
            cmd = [f"/work/main/build/bin/{prog}", "--threads", "2"] + args + ([] if name == "prime" else ["--seconds", "0.3"])
            out = subprocess.run(cmd, env=env, capture_output=True, text=True).stdout
            res.setdefault((name, lib), []).append(val(out))
print(f"{'case':<22} {'lib2/lib4':>9}")
rs = []
for c in cases + extra:
    name = c[0] if len(c) == 3 else c.name
    a, b = statistics.median(res[(name, "lib2")]), statistics.median(res[(name, "lib4")])
    rs.append(a / b)
    print(f"{name:<22} {a/b:9.2f}")
import math
print("geomean", math.exp(sum(map(math.log, rs)) / len(rs)))

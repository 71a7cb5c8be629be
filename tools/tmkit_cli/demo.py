"""`tmkit demo` / `make demo`: the bank program under every runtime configuration, as a table.

Each configuration runs the same binary (except the mutex build of the same source) for a short
fixed time at 1 and 2 threads; the table shows throughput and whether money was conserved.
"""
import os
import subprocess

from . import paths

SECONDS = "0.5"


def _run(cmd, env):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    fields = dict(kv.split("=", 1) for kv in p.stdout.split() if "=" in kv)
    return p.returncode, fields, p.stderr.strip()


def run(root):
    bindir = paths.bindir(root)
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("TMKIT_") and k not in ("LD_LIBRARY_PATH", "ITM_DEFAULT_METHOD")}
    configs = [("mutex", [os.path.join(bindir, "bank-mutex")], {})]
    for name, _ in paths.algorithms(root):
        configs.append((f"tmkit {name}", [os.path.join(bindir, "bank-tm")],
                        {"TMKIT_ALGO": name, "LD_LIBRARY_PATH": paths.libdir(root)}))
    configs.append(("libitm (system)", [os.path.join(bindir, "bank-tm")], {}))
    configs.append(("libitm ml_wt", [os.path.join(bindir, "bank-tm")], {"ITM_DEFAULT_METHOD": "ml_wt"}))

    print("bank: 1024 accounts, transfers + 1% full audits, "
          f"{SECONDS} s per cell (ops/s; 'ok' = money conserved)")
    print(f"{'runtime':<18}{'1 thread':>16}{'2 threads':>16}")
    failures = 0
    for label, cmd, extra in configs:
        cells = []
        for threads in ("1", "2"):
            rc, f, err = _run(cmd + ["--threads", threads, "--seconds", SECONDS],
                              dict(base, **extra))
            if rc != 0 or f.get("ok") != "1":
                failures += 1
                cells.append("FAILED")
                if err:
                    print(f"  {label}: {err}")
            else:
                cells.append(f"{float(f['ops_per_s']):>12,.0f} ok")
        print(f"{label:<18}{cells[0]:>16}{cells[1]:>16}")
    return 1 if failures else 0

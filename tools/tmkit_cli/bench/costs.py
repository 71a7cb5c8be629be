"""`tmkit bench costs`: the cost model (docs/costs.md). What one thing costs at one thread,
per algorithm and on GCC's libitm: instructions (callgrind: the difference between two runs of
build/bin/costs with different counts, divided by the difference, so start-up cancels out) and
nanoseconds (the median of --repeats timed runs). The operations are bench/programs/costs.c's:
an empty transaction, one read, one write, nested transactions (flattened, closed), a commit
handler, malloc/free, the retry loop, tm_counter_add, tm_atomic_* in and out of transactions,
a serial-irrevocable switch, a reference count kept three ways inside a larger transaction
and outside one, a lock group entered around a transaction or locked around plain code, and
tmkit.h's strlen and snprintf wrappers inside a transaction. Output: bench/results/costs/ (summary.md, costs.csv, context.json) unless --out or --experiment."""
import os
import statistics
import subprocess
import sys

from .. import paths
from . import standalone
from .execute import base_env, parse_line

OPS = [
    ("empty", "empty transaction"),
    ("read", "one read"),
    ("write", "one write"),
    ("nested-flat", "write + nested transaction (flattened)"),
    ("nested-closed", "write + nested transaction with a cancel path (closed)"),
    ("handler", "write + tm_on_commit handler"),
    ("malloc-free", "write + malloc and free"),
    ("retry", "tm_atomic_retry loop, no wait"),
    ("counter", "write + tm_counter_add"),
    ("atomic-out", "tm_atomic_fetch_add, no transaction"),
    ("hw-atomic", "__atomic_fetch_add, no transaction (hardware)"),
    ("atomic-in", "write + tm_atomic_fetch_add"),
    ("irrevocable", "relaxed: write + unsafe call (goes irrevocable)"),
    ("ref-relaxed-in", "refcount in a larger txn: __atomic builtin (relaxed txn)"),
    ("ref-nested-in", "refcount in a larger txn: nested __transaction_atomic"),
    ("ref-atomic-in", "refcount in a larger txn: tm_atomic_fetch_add"),
    ("ref-relaxed-out", "refcount, plain code: __atomic builtin"),
    ("ref-nested-out", "refcount, plain code: its own __transaction_atomic"),
    ("ref-atomic-out", "refcount, plain code: tm_atomic_fetch_add"),
    ("group-enter", "tm_group_enter + one-write txn + tm_group_exit"),
    ("group-lock", "tm_group_lock + plain write + tm_group_unlock"),
    ("strlen-64", "strlen of 64 bytes (tmkit.h wrapper in the txn)"),
    ("snprintf", "snprintf \"%d %s\" (tmkit.h wrapper in the txn)"),
]
ALGOS = ["adaptive", "serialirr", "gl_wt", "norec", "orec_lazy", "orec_eager"]
N_TIME, N_CG = (2000000, (2000, 12000))


def config_env(cfg, lib):
    e = dict(base_env())
    if cfg == "libitm":
        return e
    e["LD_LIBRARY_PATH"] = lib
    e["TMKIT_ALGO"] = cfg
    return e


def instructions(prog, op, env):
    """Instructions per operation (callgrind), or None."""
    counts = []
    for n in N_CG:
        r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", prog,
                            "--op", op, "--n", str(n)], env=env, capture_output=True, text=True)
        tot = [ln for ln in r.stderr.splitlines() if "Collected" in ln or "refs:" in ln]
        if r.returncode != 0 or not tot:
            return None
        counts.append(int(tot[-1].split()[-1].replace(",", "")))
    return (counts[1] - counts[0]) / (N_CG[1] - N_CG[0])


def run(argv, root):
    args, repeats = standalone.parse("costs", __doc__, argv, "timed runs per cell", lambda ap: ap.add_argument(
        "--ops", help="only these operations, comma-separated (default: all; names as in "
                      "bench/programs/costs.c)"))
    ops = OPS
    if args.ops:
        want = [o for o in args.ops.split(",") if o]
        known = {op for op, _ in OPS}
        bad = [o for o in want if o not in known]
        if bad or not want:
            print(f"tmkit bench costs: unknown --ops {', '.join(bad) or '(none)'}; known: "
                  f"{', '.join(op for op, _ in OPS)}", file=sys.stderr)
            return 2
        ops = [(op, label) for op, label in OPS if op in want]
    prog = os.path.join(paths.bindir(root), "costs")
    if not os.path.exists(prog):
        print(f"tmkit bench costs: {prog} missing; run `make build`", file=sys.stderr)
        return 2
    lib = paths.libdir(root)
    out, date, meta = standalone.start(root, "costs", args)
    configs = ALGOS + ["libitm"]
    rows, failed = [], []
    for op, _ in ops:
        for cfg in configs:
            env = config_env(cfg, lib)
            ns = []
            for _ in range(repeats):
                r = subprocess.run([prog, "--op", op, "--n", str(N_TIME // (10 if args.quick else 1))],
                                   env=env, capture_output=True, text=True)
                f = parse_line(r.stdout)
                if r.returncode == 0 and f.get("ok") == "1":
                    ns.append(float(f["ns_per_op"]))
                else:
                    failed.append(f"{op} {cfg}: exit {r.returncode} {r.stderr[-200:]}")
            ins = None if args.quick else instructions(prog, op, env)
            rows.append({"op": op, "config": cfg, "ns": statistics.median(ns) if ns else "",
                         "instructions": f"{ins:.0f}" if ins is not None else ""})
            print(f"  {op:<16} {cfg:<11} {rows[-1]['ns'] and round(rows[-1]['ns'], 2)} ns "
                  f"{rows[-1]['instructions']} instr", flush=True)
    standalone.finish(meta, out, rows, "costs.csv")
    cmd = standalone.command("costs", argv)
    write_summary(os.path.join(out, "summary.md"), rows, configs, meta, date, cmd, repeats, failed,
                  ops)
    standalone.close(meta, cmd)
    return 0 if not failed else 1


def write_summary(path, rows, configs, meta, date, cmd, repeats, failed, ops=OPS):
    cell = {(r["op"], r["config"]): r for r in rows}
    L = standalone.header("costs (one thread)", meta, date, cmd) + [
         f"- method: bench/programs/costs.c, one thread; ns = median of {repeats} runs of "
         f"{N_TIME:,} operations; instructions = callgrind, ({N_CG[1]:,} ops - {N_CG[0]:,} ops) / "
         f"{N_CG[1] - N_CG[0]:,}, including the loop. `adaptive` at one thread runs GCC's "
         "uninstrumented code under the single-thread bias; `libitm` is the system libitm "
         "(serial-irrevocable at one thread).", "",
         "Each cell: ns per operation / instructions per operation.", "",
         "| operation | " + " | ".join(configs) + " |", "|---|" + "---:|" * len(configs)]
    for op, label in ops:
        cells = []
        for cfg in configs:
            r = cell.get((op, cfg), {})
            ns = f"{r['ns']:.1f}" if r.get("ns") not in (None, "") else "-"
            cells.append(f"{ns} / {r.get('instructions') or '-'}")
        L.append(f"| {label} (`{op}`) | " + " | ".join(cells) + " |")
    if failed:
        L += ["", "## Failed runs", ""] + [f"- {f}" for f in failed]
    L.append("")
    with open(path, "w") as fh:
        fh.write("\n".join(L))

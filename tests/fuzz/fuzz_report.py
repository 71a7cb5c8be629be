#!/usr/bin/env python3
"""fuzz_report.py — the profile readers of `tmkit report` (tools/tmkit_cli/report/) and
`tmkit stat` on corrupt, truncated or hostile input: a clear message and exit status 1 (or a
table), never a traceback.

Two targets, picked by the input's first byte (even: report, odd: stat):
  report  the bytes are a profile file: `tmkit report FILE` and `tmkit report --merge FILE`,
          stdout a strict UTF-8 stream as a terminal's would be;
  stat    the bytes are what tmkit-shmdump printed for a segment: `tmkit stat --once`, and
          two refreshes of the live view, with the dumper's output given by the input.
Anything but an exit status of 0 or 1 with "tmkit report: " / "tmkit stat: " on stderr is a
finding: the input is written to --artifacts (crash-<sha1>) and the run fails.

Coverage-guided with atheris when it is importable (build/fuzz-venv, scripts/fuzz_venv.sh):
libFuzzer's engine over the instrumented bytecode, new inputs in --work, libFuzzer's final
statistics printed; otherwise a seeded mutation loop over the corpus (byte flips, JSON-aware
edits, truncation, splices), deterministic for a seed.

usage: fuzz_report.py [--seconds N] [--runs N] [--seed N] [--artifacts DIR] [--work DIR]
                      [--atheris|--no-atheris] CORPUS_DIR_OR_FILE...
       (--runs 0: replay the files once, no mutation)
"""
import argparse
import atexit
import contextlib
import hashlib
import io
import json
import os
import random
import shutil
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

report_cli = live = None   # the readers, imported by load_readers (instrumented for atheris)


def load_readers(instrument=None):
    global report_cli, live
    with instrument(include=["tmkit_cli"]) if instrument else contextlib.nullcontext():
        from tmkit_cli.report import cli as report_cli
        from tmkit_cli.report import live


class Finding(Exception):
    pass


TMP = tempfile.mkdtemp(prefix="tmkit-fuzz-report-")
atexit.register(shutil.rmtree, TMP, True)  # libFuzzer's exit skips it: run.sh sets TMPDIR


def _run(fn, prefix):
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    err = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = fn()
            out.flush()
    except SystemExit as e:  # argparse; not expected here
        rc = e.code
    except Exception:
        raise Finding(traceback.format_exc())
    if rc not in (0, 1):
        raise Finding(f"exit status {rc!r}")
    if rc == 1 and not err.getvalue().startswith(prefix):
        raise Finding(f"status 1 without a message: {err.getvalue()!r}")


def target_report(data):
    path = os.path.join(TMP, "profile.json")
    with open(path, "wb") as f:
        f.write(data)
    _run(lambda: report_cli.run([path]), "tmkit report: ")
    _run(lambda: report_cli.run(["--merge", path]), "tmkit report: ")


class _Args:
    json = False
    sort = "aborts"


def target_stat(data):
    texts = [data, data[: len(data) // 2] + data]
    real = live.call

    def fake_call(dump, args):  # what live.call answers for this output
        return live.decode(texts.pop(0) if len(texts) > 1 else texts[0])

    live.call = fake_call
    try:
        sym = live.report.Symbolizer()

        def once():
            try:
                return live.once("dumper", "fuzz", _Args, sym)
            except live.StatError as e:
                print(f"tmkit stat: {e}", file=sys.stderr)
                return 1

        def frames():
            try:
                prev, _ = live.snapshot("dumper", "fuzz")
                cur, _ = live.snapshot("dumper", "fuzz")
                live.live_frame(None, prev, 1.0, "fuzz", _Args, sym)
                live.live_frame(prev, cur, 1.0, "fuzz", _Args, sym)
                return 0
            except live.StatError as e:
                print(f"tmkit stat: {e}", file=sys.stderr)
                return 1

        _run(once, "tmkit stat: ")
        texts[:] = [data, data[: len(data) // 2] + data]
        _run(frames, "tmkit stat: ")
    finally:
        live.call = real


def one(data):
    if not data:
        return
    (target_stat if data[0] & 1 else target_report)(data[1:])


# ---- the seeded mutation loop (without atheris) ----

TOKENS = [b'"', b"{", b"}", b"[", b"]", b",", b":", b"null", b"true", b"-1", b"1e400", b"NaN",
          b"Infinity", b"0.5", b"18446744073709551616", b'"\\ud800"', b'"\\u0000"', b"\xff",
          b'"sites"', b'"counters"', b'"starts"', b'"commits"', b'"tsc_hz"', b'"site_object"',
          b'"site_offset"', b'"retries_histogram"', b'"program"', b'"processes"', b'"alive"',
          b'"tmkit_stats_version"', b'"irrevocable_call_object"', b'"gcc_irrevocable_starts"',
          b'"adaptive_epochs"', b"[" * 2000, b"{}", b"[]", b'"0x1"', b"0"]


def mutate(rng, data, corpus):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        pos = rng.randint(0, len(data))
        if op == 0 and data:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        elif op == 1:
            data[pos:pos] = rng.choice(TOKENS)
        elif op == 2 and data:
            end = min(len(data), pos + rng.randint(1, 16))
            del data[pos:end]
        elif op == 3:
            data = data[: rng.randint(0, len(data))]  # truncated
        elif op == 4:
            other = rng.choice(corpus)
            a = rng.randint(0, len(other))
            data[pos:pos] = other[a: a + rng.randint(1, 64)]
        elif op == 5:
            try:  # a JSON-aware edit: a value replaced by another type
                doc = json.loads(bytes(data[1:]))
                _replace(rng, doc)
                data = data[:1] + json.dumps(doc).encode()
            except (ValueError, RecursionError):
                pass
        elif op == 6 and data:
            data[0] ^= 1  # the other target
    return bytes(data)


ODD = [None, True, -1, 2 ** 64, 1.5, float("nan"), "x", "\ud800", [], {}, [1, "a"], {"a": 1}]


def _replace(rng, doc):
    node = doc
    for _ in range(4):
        if isinstance(node, dict) and node:
            k = rng.choice(list(node))
            if rng.random() < 0.4 or not isinstance(node[k], (dict, list)):
                if rng.random() < 0.2:
                    del node[k]
                else:
                    node[k] = rng.choice(ODD)
                return
            node = node[k]
        elif isinstance(node, list) and node:
            i = rng.randrange(len(node))
            if rng.random() < 0.4 or not isinstance(node[i], (dict, list)):
                node[i] = rng.choice(ODD)
                return
            node = node[i]
        else:
            return


def load_corpus(paths):
    out = []
    for p in paths:
        files = [os.path.join(p, f) for f in sorted(os.listdir(p))] if os.path.isdir(p) else [p]
        for f in files:
            with open(f, "rb") as fh:
                out.append((f, fh.read()))
    return out


def report_finding(args, data, why):
    name = "crash-" + hashlib.sha1(data).hexdigest()
    os.makedirs(args.artifacts, exist_ok=True)
    with open(os.path.join(args.artifacts, name), "wb") as f:
        f.write(data)
    print(f"fuzz_report: FINDING, input written to {os.path.join(args.artifacts, name)}\n{why}",
          file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", nargs="+")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--runs", type=int, default=-1, help="0: replay the corpus only")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--artifacts", default=".")
    ap.add_argument("--work", help="atheris: where new inputs go (default: a scratch directory)")
    ap.add_argument("--atheris", dest="atheris", action="store_true", default=None)
    ap.add_argument("--no-atheris", dest="atheris", action="store_false")
    args = ap.parse_args()
    try:
        import atheris
        have_atheris = True
    except ImportError:
        have_atheris = False
    if args.atheris and not have_atheris:
        print("fuzz_report: atheris is not installed", file=sys.stderr)
        return 2
    use_atheris = have_atheris and args.atheris is not False and args.runs != 0
    load_readers(atheris.instrument_imports if use_atheris else None)
    corpus = load_corpus(args.corpus)
    for name, data in corpus:  # the corpus (seeds and regressions) first, each must pass
        try:
            one(data)
        except Finding as e:
            report_finding(args, data, f"{name}: {e}")
            return 1
    if args.runs == 0:
        print(f"fuzz_report: replayed {len(corpus)} inputs, no finding")
        return 0
    if use_atheris:
        return run_atheris(args)
    rng = random.Random(args.seed)
    datas = [d for _, d in corpus] or [b"\x00{}"]
    runs, start = 0, time.monotonic()
    while (args.runs < 0 or runs < args.runs) and time.monotonic() - start < args.seconds:
        data = mutate(rng, rng.choice(datas), datas)
        runs += 1
        try:
            one(data)
        except Finding as e:
            report_finding(args, data, str(e))
            return 1
    print(f"fuzz_report: {runs} runs in {time.monotonic() - start:.1f} s (seeded mutation, seed "
          f"{args.seed}, {len(corpus)} corpus inputs), no finding")
    return 0


def run_atheris(args):
    import atheris

    def test(data):
        try:
            one(data)
        except Finding as e:
            report_finding(args, data, str(e))
            raise

    work = args.work or tempfile.mkdtemp(prefix="tmkit-fuzz-report-work-")
    os.makedirs(work, exist_ok=True)
    os.makedirs(args.artifacts, exist_ok=True)
    # the first directory receives the new inputs: never the committed corpus
    argv = [sys.argv[0], f"-max_total_time={int(args.seconds)}", "-print_final_stats=1",
            f"-seed={args.seed}", "-timeout=10", "-rss_limit_mb=2048",
            f"-artifact_prefix={args.artifacts.rstrip('/')}/", work] + \
        [p for p in args.corpus if os.path.isdir(p)]
    atheris.Setup(argv, test)
    atheris.Fuzz()   # exits the process at the end of the run
    return 0


if __name__ == "__main__":
    sys.exit(main())

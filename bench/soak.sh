#!/bin/sh
# bench/soak.sh — the long soak runs behind `make soak` (docs/soak.md): each server for SECONDS
# under its soak load (tests/soak/), one after the other, and a record of what each run did.
#
# usage: bench/soak.sh [--seconds N] [--interval S] [--build DIR] [--out DIR] [RUN...]
#   defaults: 600 s, a sample every 5 s, build/, out bench/results/soak/. RUNs (default:
#   kvcache webcache):
#     kvcache        kvcache-tmkit on tmkit's default algorithm (-t 2 -m 16)
#     kvcache-lock   kvcache-baseline, the same load (memcached 1.4's mutexes)
#     webcache       webcache-tm on tmkit's default algorithm (2 workers, 1 MB cache)
#     webcache-lock  webcache-lock, the same load
# Writes <run>.csv (one row per sample: RSS, descriptors, the server's counters), <run>.json
# (the run's figures and the RSS verdict), logs/<run>.txt (the driver's output), rss.png (the
# RSS curves, with the project's venv), summary.md and context.json. Exit 1 if any run failed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=600 INTERVAL=5 BUILD=$ROOT/build OUT=$ROOT/bench/results/soak
while [ $# -gt 0 ]; do
    case $1 in
    --seconds) SECS=$2; shift 2 ;;
    --interval) INTERVAL=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "soak.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
RUNS=${*:-kvcache webcache}
PY=$ROOT/.venv/bin/python
[ -x "$PY" ] || { echo "soak.sh: $PY is missing: make venv" >&2; exit 1; }
LIB=$BUILD/lib BIN=$BUILD/bin
mkdir -p "$OUT/logs"
start=$(date -u '+%Y-%m-%d %H:%M UTC')
load0=$(cut -d' ' -f1-3 /proc/loadavg)
commit=$(git -C "$ROOT" rev-parse --short HEAD)
[ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ] && commit="$commit (with uncommitted changes)"

failed=""
for r in $RUNS; do
    common="--seconds $SECS --interval $INTERVAL --csv $OUT/$r.csv --json $OUT/$r.json"
    case $r in
    kvcache)
        set -- env TMKIT_ALGO=adaptive LD_LIBRARY_PATH="$LIB" KV_EXPECT_RUNTIME=tmkit \
            KV_TMKIT_LIB="$LIB" "$PY" "$ROOT/tests/soak/soak_kvcache.py" "$BIN/kvcache-tmkit" ;;
    kvcache-lock)
        set -- env "$PY" "$ROOT/tests/soak/soak_kvcache.py" "$BIN/kvcache-baseline" ;;
    webcache)
        set -- env TMKIT_ALGO=adaptive LD_LIBRARY_PATH="$LIB" WC_EXPECT_LIBITM="$LIB" \
            "$PY" "$ROOT/tests/soak/soak_webcache.py" "$BIN" --build tm ;;
    webcache-lock)
        set -- env "$PY" "$ROOT/tests/soak/soak_webcache.py" "$BIN" --build lock ;;
    *) echo "soak.sh: unknown run $r" >&2; exit 2 ;;
    esac
    echo "soak.sh: $r for $SECS s" >&2
    # shellcheck disable=SC2086
    PYTHONDONTWRITEBYTECODE=1 "$@" $common >"$OUT/logs/$r.txt" 2>&1
    rc=$?
    [ $rc -eq 0 ] || failed="$failed $r"
    echo "soak.sh: $r: exit $rc ($(tail -1 "$OUT/logs/$r.txt"))" >&2
done

"$PY" "$ROOT/bench/scripts/soak_summary.py" "$OUT" $RUNS >&2
files=""
for r in $RUNS; do files="$files\"$r.csv\", \"$r.json\", "; done
cat >"$OUT/context.json" <<JSON
{
  "experiment": "soak",
  "command": "bench/soak.sh --seconds $SECS --interval $INTERVAL $RUNS",
  "date": "$start",
  "commit": "$commit",
  "machine": "$(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), Linux $(uname -r), load $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end",
  "toolchain": "$(gcc --version | head -1); $(memcslap --version 2>&1 | head -1); $("$PY" --version)",
  "files": [${files}"summary.md", "rss.png", "context.json", "logs/"],
  "notes": "runs one after the other on the same machine; a sample every $INTERVAL s (or a sixteenth of a run, if less)"
}
JSON
if [ -n "$failed" ]; then
    echo "soak.sh: failed:$failed (logs in $OUT/logs/)" >&2
    exit 1
fi
echo "soak.sh: wrote $OUT" >&2

#!/bin/sh
# bench/fuzz.sh — the long fuzz runs behind `make fuzz` (docs/fuzzing.md): every target of
# tests/fuzz for SECONDS each, JOBS at a time, and a record of what each run did.
#
# usage: bench/fuzz.sh [--seconds N] [--jobs N] [--build DIR] [--out DIR] [TARGET...]
#   defaults: 300 s, 1 at a time, build/, out bench/results/fuzz/ (fuzz.csv, context.json,
#   logs/<target>.txt: the tail of each run's log). TARGETs: kv_text kv_binary http
#   http_target channels_msg config shmdump report (default: all).
# Each libFuzzer target starts from its committed corpus and regressions plus the inputs the
# previous long runs kept (BUILD/fuzz/long-corpus/<target>/, not committed); a finding's input
# goes to BUILD/fuzz/artifacts/<target>/ and the run is marked "finding" in fuzz.csv.
# fuzz.csv: target, seconds, executions, execs_per_s, seed_cov, seed_ft, cov, ft (libFuzzer's
# edge and feature coverage at the start, from the seeds alone, and at the end), corpus_units,
# new_units, peak_rss_mb, result. The Python target (report) runs under atheris from
# BUILD/fuzz-venv (make fuzz-venv) with the same counts (of Python bytecode edges), or else its
# mutation loop, without coverage counts ("-").
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_EACH=300 JOBS=1 BUILD=$ROOT/build OUT=$ROOT/bench/results/fuzz
ALL="kv_text kv_binary http http_target channels_msg config shmdump report"
while [ $# -gt 0 ]; do
    case $1 in
    --seconds) SECONDS_EACH=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
TARGETS=${*:-$ALL}
FUZZ=$ROOT/tests/fuzz BIN=$BUILD/fuzz
for t in $TARGETS; do
    [ "$t" = report ] || [ -x "$BIN/fuzz_$t" ] || {
        echo "fuzz.sh: $BIN/fuzz_$t is missing: make build with clang-14 and libclang-rt-14-dev" \
             "installed (scripts/deps.sh)" >&2
        exit 1
    }
done
mkdir -p "$OUT/logs"
start=$(date '+%Y-%m-%d %H:%M')
load=$(cut -d' ' -f1-3 /proc/loadavg)
# the tree the run starts from (the harnesses and the code under test are built from it)
commit=$(git -C "$ROOT" rev-parse --short HEAD)
[ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ] && commit="$commit (with uncommitted changes)"

run_one() { # target -> $OUT/logs/<t>.txt (tail) and a CSV row in $OUT/.row.<t>
    t=$1 log=$BIN/long-$1.log art=$BIN/artifacts/$1
    mkdir -p "$art"
    if [ "$t" = report ]; then # atheris from BUILD/fuzz-venv when there, else the mutation loop
        py=$BUILD/fuzz-venv/bin/python
        "$py" -c "import atheris" >/dev/null 2>&1 || py=$ROOT/.venv/bin/python
        mkdir -p "$BIN/long-corpus/$t"
        "$py" "$FUZZ/fuzz_report.py" --seconds "$SECONDS_EACH" --seed "$(date +%s)" \
            --artifacts "$art" --work "$BIN/long-corpus/$t" "$FUZZ/corpus/report" \
            "$FUZZ/regressions/report" "$BIN/long-corpus/$t" >"$log" 2>&1
        rc=$?
    else
        keep=$BIN/long-corpus/$t
        mkdir -p "$keep"
        set -- "$FUZZ/corpus/$t"
        [ -d "$FUZZ/regressions/$t" ] && set -- "$@" "$FUZZ/regressions/$t"
        ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
            nice "$BIN/fuzz_$t" -max_total_time="$SECONDS_EACH" -print_final_stats=1 -timeout=10 \
            -rss_limit_mb=2048 -artifact_prefix="$art/" "$keep" "$@" >"$log" 2>&1
        rc=$?
    fi
    if grep -q '^stat::number_of_executed_units' "$log"; then # libFuzzer (or atheris)
        stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
        inited=$(grep -m1 'INITED' "$log")
        last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1)
        field() { echo "$1" | sed -n "s/.* $2: \([0-9]*\).*/\1/p"; }
        corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p')
        row="$t,$SECONDS_EACH,$(stat number_of_executed_units),$(stat average_exec_per_sec)"
        row="$row,$(field "$inited" cov),$(field "$inited" ft),$(field "$last" cov),$(field "$last" ft)"
        row="$row,$corp,$(stat new_units_added),$(stat peak_rss_mb)"
    else # fuzz_report.py's mutation loop: no coverage counts
        runs=$(sed -n 's/^fuzz_report: \([0-9]*\) runs in \([0-9.]*\) s.*/\1 \2/p' "$log")
        set -- $runs
        execs=${1:-0} secs=${2:-$SECONDS_EACH}
        rate=$(awk -v e="$execs" -v s="$secs" 'BEGIN { printf "%d", s > 0 ? e / s : 0 }')
        row="$t,$SECONDS_EACH,$execs,$rate,-,-,-,-,-,-,-"
    fi
    if [ $rc -eq 0 ]; then row="$row,ok"; else row="$row,finding (exit $rc; input in $art)"; fi
    echo "$row" >"$OUT/.row.$t"
    tail -40 "$log" >"$OUT/logs/$t.txt"
    echo "fuzz.sh: $row" >&2
}

# JOBS at a time
running=0
for t in $TARGETS; do
    run_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then wait; running=0; fi
done
wait

{
    echo "target,seconds,executions,execs_per_s,seed_cov,seed_ft,cov,ft,corpus_units,new_units,peak_rss_mb,result"
    for t in $TARGETS; do cat "$OUT/.row.$t"; rm -f "$OUT/.row.$t"; done
} >"$OUT/fuzz.csv"

cc=$( (clang-14 --version 2>/dev/null || echo "clang: none") | head -1)
pyrun=$( ("$BUILD/fuzz-venv/bin/python" -c 'import sys, atheris, importlib.metadata as m; print("Python", sys.version.split()[0], "with atheris", m.version("atheris"))' ||
          "$ROOT/.venv/bin/python" -c 'import sys; print("Python", sys.version.split()[0], "(seeded mutation loop, no atheris)")') 2>/dev/null)
cat >"$OUT/context.json" <<JSON
{
  "experiment": "fuzz",
  "command": "bench/fuzz.sh --seconds $SECONDS_EACH --jobs $JOBS $TARGETS",
  "date": "$start",
  "commit": "$commit",
  "machine": "$(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), Linux $(uname -r), load $load at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end",
  "toolchain": "$cc; libFuzzer with ASan+UBSan; report: $pyrun",
  "files": ["fuzz.csv", "context.json", "logs/"],
  "notes": "each target $SECONDS_EACH s from its committed corpus and regressions plus earlier long runs' inputs kept in build/fuzz/long-corpus/"
}
JSON
echo "fuzz.sh: wrote $OUT/fuzz.csv" >&2
! grep -q ',finding' "$OUT/fuzz.csv"

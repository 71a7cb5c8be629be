#!/bin/sh
# What the statistics cost per transaction in each of their modes: off, private
# (TMKIT_STATS=file: per-thread tables, batched counts) and shared (TMKIT_STATS_SHM=name: every
# attempt counted into the thread's block of the segment at once). docs/stats.md quotes it;
# bench/results/stats-modes/ holds its latest output.
#
# Instructions per transaction: callgrind of build/bin/micro-tm at OPS1 and OPS2 operations per
# thread, (I(OPS2) - I(OPS1)) / ((OPS2 - OPS1) x threads), which cancels start-up; for the empty
# transaction at 1 thread and the shared counter at 1 and 2 threads, with
# TMKIT_STATS_STRIDE=256 as `tmkit bench` uses. Then ROUNDS rounds of shared-counter throughput
# at 2 threads (micro-tm --mode counter --seconds RUN_SECONDS), the three modes side by side.
#
# usage (from the repository root): bench/scripts/stats_modes.sh [BUILD_DIR [LIB_DIR]]
#   BUILD_DIR  the build to run (default build); its bin/micro-tm is the program
#   LIB_DIR    the libitm.so.1 to load (default BUILD_DIR/lib): another revision's library
#              beside the same program gives a before/after comparison
#   environment: OPS1 (default 20000), OPS2 (120000), ROUNDS (3), RUN_SECONDS (0.5)
# Writes two Markdown tables on stdout; needs valgrind.
set -e
b=${1:-build}; lib=${2:-$b/lib}
ops1=${OPS1:-20000}; ops2=${OPS2:-120000}; rounds=${ROUNDS:-3}; secs=${RUN_SECONDS:-0.5}
[ -x "$b/bin/micro-tm" ] || { echo "stats_modes.sh: no $b/bin/micro-tm (build first)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "stats_modes.sh: valgrind not found" >&2; exit 2; }
t=$(mktemp -d); seg=statsmodes$$
trap 'rm -rf "$t"; rm -f /dev/shm/tmkit.$seg' EXIT

ins() { # ins MODE THREADS ENV...: instructions per transaction
    m=$1; n=$2; shift 2
    for ops in $ops1 $ops2; do
        env -u TMKIT_STATS -u TMKIT_STATS_SHM LD_LIBRARY_PATH="$lib" TMKIT_STATS_STRIDE=256 "$@" valgrind --tool=callgrind \
            --callgrind-out-file="$t/cg.$ops" "$b/bin/micro-tm" --mode "$m" --threads "$n" \
            --ops "$ops" >/dev/null 2>"$t/err"
        grep -o 'Collected : [0-9]*' "$t/err" | tr -dc 0-9 > "$t/n.$ops"
    done
    echo $(( ($(cat "$t/n.$ops2") - $(cat "$t/n.$ops1")) / ((ops2 - ops1) * n) ))
}
echo "| instructions per transaction | off | TMKIT_STATS=file | TMKIT_STATS_SHM=name |"
echo "|---|---:|---:|---:|"
for c in "empty 1" "counter 1" "counter 2"; do
    set -- $c
    echo "| $1, $2 thread(s) | $(ins $1 $2) | $(ins $1 $2 TMKIT_STATS="$t/s") |" \
         "$(ins $1 $2 TMKIT_STATS_SHM=$seg) |"
done
echo
echo "| shared counter, 2 threads, M ops/s | off | file | shm |"
echo "|---|---:|---:|---:|"
tp() { env -u TMKIT_STATS -u TMKIT_STATS_SHM LD_LIBRARY_PATH="$lib" "$@" "$b/bin/micro-tm" --mode counter --threads 2 \
           --seconds "$secs" | grep -o 'ops_per_s=[0-9.]*' | awk -F= '{printf "%.1f", $2 / 1e6}'; }
r=1
while [ $r -le "$rounds" ]; do
    echo "| round $r | $(tp) | $(tp TMKIT_STATS="$t/s") | $(tp TMKIT_STATS_SHM=$seg) |"
    r=$((r + 1))
done

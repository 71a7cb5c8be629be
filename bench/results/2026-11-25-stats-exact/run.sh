#!/bin/sh
# Instructions per transaction with statistics off, private (TMKIT_STATS=file) and shared
# (TMKIT_STATS_SHM=name), as bench/results/2026-11-24-stats-shm measured them: callgrind of
# micro-tm at 20,000 and 120,000 operations per thread, the difference over 100,000 x threads;
# then 3 rounds of shared-counter throughput at 2 threads.
# usage: run.sh BUILD_DIR [LIB_DIR]   (LIB_DIR: the libitm.so.1 to run; default BUILD_DIR/lib)
set -e
b=$1; lib=${2:-$1/lib}; t=$(mktemp -d); trap 'rm -rf "$t"; rm -f /dev/shm/tmkit.se$$' EXIT
ins() { # ins MODE THREADS ENV...: instructions per transaction
    m=$1; n=$2; shift 2
    for ops in 20000 120000; do
        env LD_LIBRARY_PATH=$lib TMKIT_STATS_STRIDE=256 "$@" valgrind --tool=callgrind \
            --callgrind-out-file=$t/cg.$ops $b/bin/micro-tm --mode $m --threads $n --ops $ops \
            >/dev/null 2>$t/err
        grep -o 'Collected : [0-9]*' $t/err | tr -dc 0-9 > $t/n.$ops
    done
    echo $(( ($(cat $t/n.120000) - $(cat $t/n.20000)) / (100000 * n) ))
}
echo "| instructions per transaction | off | TMKIT_STATS=file | TMKIT_STATS_SHM=name |"
echo "|---|---:|---:|---:|"
for c in "empty 1" "counter 1" "counter 2"; do
    set -- $c
    echo "| $1, $2 thread(s) | $(ins $1 $2 X=off) | $(ins $1 $2 TMKIT_STATS=$t/s) | $(ins $1 $2 TMKIT_STATS_SHM=se$$) |"
done
echo
echo "| shared counter, 2 threads, M ops/s | off | file | shm |"
echo "|---|---:|---:|---:|"
tp() { env LD_LIBRARY_PATH=$lib "$@" $b/bin/micro-tm --mode counter --threads 2 --seconds 0.5 |
       grep -o 'ops_per_s=[0-9]*' | awk -F= '{printf "%.1f", $2 / 1e6}'; }
for r in 1 2 3; do
    echo "| round $r | $(tp X=off) | $(tp TMKIT_STATS=$t/s) | $(tp TMKIT_STATS_SHM=se$$) |"
done

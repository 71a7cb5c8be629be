#!/bin/sh
# Instructions per transactional access with and without tmkit's GCC plugin (docs/plugin.md),
# counted by callgrind (repeatable whatever the machine's load): micro's reads and writes of 64
# words per transaction, one thread, under gl_wt and orec_eager, each build run at two operation
# counts so that start-up cancels: (I(2N) - I(N)) / (N * 64), begin and commit shared over the
# 64 accesses. Output: CSV on stdout (algo, mode, build, instr_per_access).
# Usage: bench/scripts/plugin_instr.sh [BUILD]   (default: build)
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$ROOT/build}
N=20000
count() { # count ALGO MODE PROG OPS
    TMKIT_ALGO=$1 LD_LIBRARY_PATH=$B/lib valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        "$B/bin/$3" --mode "$2" --n 64 --ops "$4" 2>&1 | sed -n 's/.*refs: *\([0-9,]*\).*/\1/p' | tr -d ,
}
echo "algo,mode,build,instr_per_access"
for algo in gl_wt orec_eager; do
    for mode in reads writes; do
        for prog in micro-tm micro-tminl; do
            a=$(count $algo $mode $prog $N)
            b=$(count $algo $mode $prog $((2 * N)))
            echo "$algo,$mode,${prog#micro-},$(echo "scale=2; ($b - $a) / ($N * 64)" | bc)"
        done
    done
done

#!/bin/sh
# The cap that GCC's TM ABI puts on the default's 2-thread/1-thread ratio on this machine.
# At 1 thread the default (adaptive) runs GCC's uninstrumented code under the single-thread
# bias; two threads that run at once run the instrumented clone (a call per access). So
# default(2) / default(1) <= 2 x instrumented(1) / uninstrumented(1), measured here as
# 2 x gl_wt(1) / adaptive(1) in the same round, beside what 2 threads reach.
# Per round, in this order, SECONDS each: adaptive 1, gl_wt 1, adaptive 2, gl_wt 2, mutex 1,
# mutex 2. Prints "case label ops_per_s=N" lines; summarize.py reads them.
# Usage: caps.sh ROUNDS SECONDS BUILD_DIR   (BUILD_DIR: a tmkit build, e.g. build)
set -eu
R=$1; S=$2; B=$3
run() { # run CASE LABEL ALGO THREADS PROG ARGS...
    rc=$1 rl=$2 ra=$3 rt=$4 rp=$5; shift 5
    printf "%s %s " "$rc" "$rl"
    TMKIT_ALGO=$ra LD_LIBRARY_PATH=$B/lib "$B/bin/$rp" "$@" --threads "$rt" --seconds "$S" |
        grep -o "ops_per_s=[0-9]*"
}
for r in $(seq 1 "$R"); do
    for c in tree hash; do
        if [ $c = tree ]; then p=rbtree; set -- --range 65536 --update-pct 20
        else p=hashset; set -- --buckets 65536 --range 262144 --update-pct 10; fi
        run $c ad1 adaptive 1 $p-tm "$@"
        run $c gl1 gl_wt 1 $p-tm "$@"
        run $c ad2 adaptive 2 $p-tm "$@"
        run $c gl2 gl_wt 2 $p-tm "$@"
        run $c mx1 "" 1 $p-mutex "$@"
        run $c mx2 "" 2 $p-mutex "$@"
    done
done

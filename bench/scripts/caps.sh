#!/bin/sh
# caps.sh: the cap that GCC's TM ABI puts on the default's 2-thread/1-thread speed-up of
# read-mostly work (bench/results/scaling/, docs/scaling.md).
#
# At 1 thread the default (adaptive) runs GCC's uninstrumented code under the single-thread
# bias; two threads that run at once run the instrumented clone (an out-of-line call per
# access). So default(2) / default(1) <= 2 x instrumented(1) / uninstrumented(1), measured here
# as 2 x gl_wt(1) / adaptive(1) within one round, beside what 2 threads reach.
#
# Cases: the 64K-key red-black tree with 20% updates ("tree") and the 256K-key hash set with
# 65,536 buckets and 10% updates ("hash"), as `make bench` runs them. Each round runs, in this
# order and SECONDS each: adaptive 1 thread (ad1), gl_wt 1 (gl1), adaptive 2 (ad2), gl_wt 2
# (gl2), the mutex build at 1 (mx1) and 2 (mx2), first for the tree, then for the hash set.
#
# Usage: bench/scripts/caps.sh ROUNDS SECONDS [BUILD_DIR] > runs.txt
#        bench/scripts/caps_summary.py runs.txt > summary.txt
#   BUILD_DIR: a tmkit build (default: build), holding bin/{rbtree,hashset}-{tm,mutex} and
#   lib/libitm.so.1.
# Writes to stdout one line per run: "CASE LABEL ops_per_s=N".
set -eu
[ $# -ge 2 ] || { echo "usage: $0 ROUNDS SECONDS [BUILD_DIR]" >&2; exit 2; }
R=$1; S=$2; B=${3:-build}
run() { # run CASE LABEL ALGO THREADS PROG ARGS...
    rc=$1 rl=$2 ra=$3 rt=$4 rp=$5; shift 5
    printf "%s %s " "$rc" "$rl"
    env -u TMKIT_STATS TMKIT_ALGO="$ra" LD_LIBRARY_PATH="$B/lib" \
        "$B/bin/$rp" "$@" --threads "$rt" --seconds "$S" | grep -o "ops_per_s=[0-9]*"
}
for r in $(seq 1 "$R"); do
    for c in tree hash; do
        if [ $c = tree ]; then p=rbtree; set -- --range 65536 --update-pct 20
        else p=hashset; set -- --buckets 65536 --range 262144 --update-pct 10; fi
        run $c ad1 adaptive 1 $p-tm "$@"
        run $c gl1 gl_wt 1 $p-tm "$@"
        run $c ad2 adaptive 2 $p-tm "$@"
        run $c gl2 gl_wt 2 $p-tm "$@"
        run $c mx1 adaptive 1 $p-mutex "$@"
        run $c mx2 adaptive 2 $p-mutex "$@"
    done
done

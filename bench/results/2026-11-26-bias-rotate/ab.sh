#!/bin/sh
# A/B of TMKIT_BIAS=rotate (new default) against single (the old behaviour) under adaptive:
# each case at 1 and 2 threads, configurations alternated, REPS rounds of 1 s runs; prints one
# line per run (case threads config ops/s). Usage: ab.sh BUILD_DIR REPS > runs.txt
b=$1; reps=${2:-3}
run() { # run CASE THREADS BIAS PROGRAM ARGS...
    c=$1; t=$2; bias=$3; shift 3
    ops=$(env LD_LIBRARY_PATH=$b/lib TMKIT_ALGO=adaptive TMKIT_BIAS=$bias "$@" --threads $t --seconds 1 |
          tr ' ' '\n' | sed -n 's/^ops_per_s=//p')
    echo "$c $t $bias $ops"
}
for r in $(seq $reps); do
  for t in 1 2; do
    for bias in rotate single; do
      run reads-16 $t $bias $b/bin/micro-tm --mode reads --n 16
      run empty $t $bias $b/bin/micro-tm --mode empty
      run disjoint $t $bias $b/bin/micro-tm --mode disjoint
      run counter $t $bias $b/bin/micro-tm --mode counter
      run writes-16 $t $bias $b/bin/micro-tm --mode writes --n 16
      run rbtree-1024-u10 $t $bias $b/bin/rbtree-tm --range 1024 --update-pct 10
      run hashset-4096-u10 $t $bias $b/bin/hashset-tm --range 4096 --update-pct 10
      run list-256-u10 $t $bias $b/bin/list-tm --range 256 --update-pct 10
      run rbtree-65536-u20 $t $bias $b/bin/rbtree-tm --range 65536 --update-pct 20
    done
  done
done

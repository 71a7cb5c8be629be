#!/bin/bash
# usage: run.sh REPS "ALGOS" ARGS...   ALGO libitm = system libitm, else tmkit TMKIT_ALGO=ALGO
reps=$1; algos=$2; shift 2
for a in $algos; do
  pass=0; fail=0; msgs=""
  for r in $(seq $reps); do
    if [ $a = libitm ]; then out=$(timeout 60 ./pc "$@" 2>&1); rc=$?
    else out=$(LD_LIBRARY_PATH=/work/main/build-mccv/lib TMKIT_ALGO=$a timeout 60 ./pc "$@" 2>&1); rc=$?; fi
    if [ $rc = 0 ]; then pass=$((pass+1)); else fail=$((fail+1)); msgs="$msgs [rc=$rc ${out:0:120}]"; fi
  done
  echo "pc $* $a: $pass/$reps pass$msgs"
done

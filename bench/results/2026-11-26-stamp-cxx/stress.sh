#!/bin/bash
# usage: stress.sh VARIANT REPS [THREADS] -> more repeats of every tmkit algorithm (and libitm every
# 5th round) at 2 and 4 threads, appended to /tmp/stampxx/stress-VARIANT.txt
V=$1; N=${2:-5}
for r in $(seq 1 $N); do
 for t in ${3:-2 4}; do
  for b in ${BENCHES:-genome intruder vacation kmeans ssca2 labyrinth yada bayes}; do
   for a in ${ALGOS:-adaptive orec_eager gl_wt serialirr norec orec_lazy}; do
    /tmp/stampxx/run1.sh $V $b $a $t s$r
   done
   [ -z "$ALGOS" ] && [ $((r % 5)) -eq 1 ] && /tmp/stampxx/run1.sh $V $b libitm $t s$r
  done
 done
done >> /tmp/stampxx/stress-$V.txt

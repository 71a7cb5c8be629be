#!/bin/bash
# usage: matrix.sh VARIANT REPS -> appends result lines to /tmp/stampxx/matrix-VARIANT.txt
V=$1; N=${2:-2}
for r in $(seq 1 $N); do
 for t in 1 2 4; do
  for b in ${BENCHES:-genome intruder vacation kmeans ssca2 labyrinth yada bayes}; do
   for a in ${ALGOS:-libitm adaptive orec_eager gl_wt serialirr norec orec_lazy}; do
    /tmp/stampxx/run1.sh $V $b $a $t m$r
   done
  done
 done
done >> /tmp/stampxx/matrix-$V.txt

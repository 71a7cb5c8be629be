#!/bin/bash
# main matrix: every bench x thread count; orec_eager 5 reps, adaptive/orec_lazy/libitm 3 reps (interleaved)
for b in genome intruder vacation kmeans ssca2 labyrinth; do
 for t in 1 2 4; do
  for r in 1 2 3 4 5; do
   for a in libitm orec_eager adaptive orec_lazy; do
    if [ $a != orec_eager ] && [ $r -gt 3 ]; then continue; fi
    /tmp/stamp/run1.sh $b $a $t $r
   done
  done
 done
done

#!/bin/bash
# correctness stress: orec_eager 20 reps at 2 and 4 threads on every bench incl. larger variants;
# then adaptive and orec_lazy 10 reps on the larger variants; libitm 3 reps of larger variants as reference
for r in $(seq 1 20); do
 for t in 2 4; do
  for b in genome intruder vacation kmeans ssca2 labyrinth genomeL intruderL vacationH labyrinthL; do
   /tmp/stamp/run1.sh $b orec_eager $t s$r
  done
 done
done
for r in $(seq 1 10); do
 for t in 2 4; do
  for b in genomeL intruderL vacationH labyrinthL; do
   for a in adaptive orec_lazy; do /tmp/stamp/run1.sh $b $a $t s$r; done
   [ $r -le 3 ] && /tmp/stamp/run1.sh $b libitm $t s$r
  done
 done
done

#!/bin/bash
# before (45b7e3e) vs after (8b580a4) orec_eager, alternated pairs, larger runs only
for r in 1 2 3 4 5 6 7; do
 for t in 1 2 4; do
  for b in vacation kmeans genomeL intruderL vacationH; do
   /tmp/stamp/run1.sh $b prev:orec_eager $t q$r
   /tmp/stamp/run1.sh $b orec_eager $t q$r
  done
 done
done

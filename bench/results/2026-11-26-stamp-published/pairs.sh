#!/bin/bash
# NEW (92b4427) vs OLD (5399c88), 7 alternated pairs; the order flips every pair (old first in
# odd pairs, new first in even ones). orec_eager at 2 and 4 threads, adaptive at 4 threads.
# genome/intruder/vacation/kmeans are the briefed commands; genomeL/intruderL/vacationH added
# (longer runs; vacationH is the hot one).
R1=/tmp/stamp-pub/run1.sh
echo "start $(date -u) load $(cat /proc/loadavg)"
for r in 1 2 3 4 5 6 7; do
 if [ $((r % 2)) = 1 ]; then ORDER="old new"; else ORDER="new old"; fi
 for c in orec_eager:2 orec_eager:4 adaptive:4; do
  for b in genome intruder vacation kmeans genomeL intruderL vacationH; do
   for L in $ORDER; do LIB=$L $R1 $b ${c%:*} ${c#*:} p$r; done
  done
 done
 echo "# after pair $r $(date -u +%T) load $(cat /proc/loadavg)"
done
echo "end $(date -u) load $(cat /proc/loadavg)"

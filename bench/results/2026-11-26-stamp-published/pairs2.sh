#!/bin/bash
# second round (pairs2.txt): orec_eager at 1, 2 and 4 threads, 7 more alternated pairs (q1-q7)
# (as pairs.sh: NEW vs OLD, old first in odd pairs, new first in even ones; genomeL dropped)
R1=/tmp/stamp-pub/run1.sh
echo "start $(date -u) load $(cat /proc/loadavg)"
for r in 1 2 3 4 5 6 7; do
 if [ $((r % 2)) = 1 ]; then ORDER="old new"; else ORDER="new old"; fi
 for c in orec_eager:1 orec_eager:2 orec_eager:4; do
  for b in genome intruder vacation kmeans intruderL vacationH; do
   for L in $ORDER; do LIB=$L $R1 $b ${c%:*} ${c#*:} q$r; done
  done
 done
 echo "# after pair $r $(date -u +%T) load $(cat /proc/loadavg)"
done
echo "end $(date -u) load $(cat /proc/loadavg)"

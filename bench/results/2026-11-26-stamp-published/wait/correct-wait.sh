#!/bin/bash
R1=/tmp/stamp-pub/run1.sh
echo "start $(date -u) load $(cat /proc/loadavg)"
for r in 1 2 3 4; do for t in 2 4; do for a in orec_eager adaptive; do
 for b in genome intruder vacation kmeans ssca2 labyrinth; do LIB=wait LOCK=" " $R1 $b $a $t w$r; done
done; done; done
for r in 1 2; do for t in 4; do
 for b in genomeL intruderL vacationH labyrinthL; do LIB=wait LOCK=" " $R1 $b orec_eager $t w$r; done
done; done
for r in 1 2; do for b in genome intruder vacation kmeans ssca2 labyrinth; do LIB=wait LOCK=" " $R1 $b orec_lazy 4 w$r; done; done
echo "end $(date -u) load $(cat /proc/loadavg)"

#!/bin/bash
# correctness on NEW (92b4427): 6 checked programs x orec_eager/adaptive x 2/4 threads x 10 runs;
# orec_eager larger/hotter variants x 2/4 threads x 3 runs; orec_lazy 4 threads x 3 runs
R1=/tmp/stamp-pub/run1.sh
echo "start $(date -u) load $(cat /proc/loadavg)"
for r in $(seq 1 10); do for t in 2 4; do for a in orec_eager adaptive; do
 for b in genome intruder vacation kmeans ssca2 labyrinth; do $R1 $b $a $t c$r; done
done; done; done
for r in 1 2 3; do for t in 2 4; do
 for b in genomeL intruderL vacationH vacationC labyrinthL; do $R1 $b orec_eager $t c$r; done
done; done
for r in 1 2 3; do for b in genome intruder vacation kmeans ssca2 labyrinth; do $R1 $b orec_lazy 4 c$r; done; done
echo "end $(date -u) load $(cat /proc/loadavg)"

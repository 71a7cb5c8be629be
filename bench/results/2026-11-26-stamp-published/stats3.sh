#!/bin/bash
# REV's abort counts (orec_eager, 4 threads): as OLD's if the abort rise is 116bc9a's hunk
S=/tmp/stamp-pub/statrun.sh
echo "start $(date -u) load $(cat /proc/loadavg)"
for r in 1 2; do for b in vacation kmeans intruderL vacationH; do
 for L in old rev new; do $S $L $b orec_eager 4 v$r; done
done; done
echo "end $(date -u) load $(cat /proc/loadavg)"

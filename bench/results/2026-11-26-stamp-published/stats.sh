#!/bin/bash
# TMKIT_STATS profiles, OLD and NEW alternated: abort and wait counts behind the pair ratios;
# then TMKIT_PRIVATIZATION=off (no wait, so NEW releases at once like OLD) as a control
S=/tmp/stamp-pub/statrun.sh
echo "start $(date -u) load $(cat /proc/loadavg)"
for r in 1 2; do for t in 2 4; do for b in vacation intruder kmeans genomeL intruderL vacationH; do
 for L in old new; do $S $L $b orec_eager $t s$r; done
done; done; done
for r in 1 2; do for b in vacation intruder intruderL vacationH; do for L in old new; do $S $L $b adaptive 4 s$r; done; done; done
for r in 1 2 3; do for b in vacation intruderL vacationH; do for L in old new; do $S $L $b orec_eager 4 o$r off; done; done; done
echo "end $(date -u) load $(cat /proc/loadavg)"

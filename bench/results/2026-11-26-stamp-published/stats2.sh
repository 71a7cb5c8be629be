#!/bin/bash
# orec_lazy (also changed by 116bc9a) at 4 threads: TMKIT_STATS profiles, OLD and NEW alternated
S=/tmp/stamp-pub/statrun.sh
echo "start $(date -u) load $(cat /proc/loadavg)"
for r in 1 2 3; do for b in vacation intruder kmeans intruderL vacationH; do
 for L in old new; do $S $L $b orec_lazy 4 z$r; done
done; done
echo "end $(date -u) load $(cat /proc/loadavg)"

#!/bin/bash
# attribution (triples.txt): OLD (5399c88), REV (92b4427 with 116bc9a's orec_eager.c/orec_lazy.c
# hunks reverted, so no `published` hook: orecs released before the wait as in OLD) and NEW
# (92b4427), orec_eager, 5 rounds, order rotated each round.
R1=/tmp/stamp-pub/run1.sh
echo "start $(date -u) load $(cat /proc/loadavg)"
for r in 1 2 3 4 5; do
 case $((r % 3)) in 1) ORDER="old rev new";; 2) ORDER="rev new old";; 0) ORDER="new old rev";; esac
 for c in 2 4; do
  for b in intruder vacation kmeans intruderL vacationH; do
   for L in $ORDER; do LIB=$L $R1 $b orec_eager $c t$r; done
  done
 done
 echo "# after round $r $(date -u +%T) load $(cat /proc/loadavg)"
done
echo "end $(date -u) load $(cat /proc/loadavg)"

#!/bin/bash
# usage: SRC=... OUTBASE=... repsuite.sh "CFGS" THREADS N   (alternates the configurations, N rounds)
here=$(dirname $(readlink -f $0))
for i in $(seq $3); do for c in $1; do
  echo "== rep $i $c t$2 $(date -u +%T)"; OUTBASE=$OUTBASE/rep$i $here/suite.sh $c $2 | grep -E "^t/|testapp rc=[1-9]"
done; done

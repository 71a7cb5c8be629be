#!/bin/bash
# usage: SRC=<built memcached dir> OUTBASE=<dir> matrix.sh "CFGS" "THREADS" [suite|stress|both] [PORT]
# runs suite.sh then stressrun.sh for every configuration x thread count, one at a time
here=$(dirname $(readlink -f $0)); cfgs=$1; ths=$2; what=${3:-both}; port=${4:-22122}
for c in $cfgs; do for t in $ths; do
  [ "$what" != stress ] && { echo "== suite $c t$t $(date -u +%T)"; OUTBASE=$OUTBASE/suite $here/suite.sh $c $t; }
  [ "$what" != suite ] && { echo "== stress $c t$t $(date -u +%T)"; OUTBASE=$OUTBASE/stress $here/stressrun.sh $c $t $port; }
done; done

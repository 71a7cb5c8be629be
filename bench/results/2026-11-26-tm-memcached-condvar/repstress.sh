#!/bin/bash
# usage: SRC=... OUTBASE=... [SERVER_OPTS=...] repstress.sh "CFGS" THREADS N PORT
# alternates the configurations, N rounds, stressrun.sh into OUTBASE/rep<i>; core files allowed
here=$(dirname $(readlink -f $0)); ulimit -c unlimited
for i in $(seq $3); do for c in $1; do
  echo "== rep $i $c t$2 $(date -u +%T)"; OUTBASE=$OUTBASE/rep$i $here/stressrun.sh $c $2 $4 | grep -E "server after|stress [0-9] rc=[1-9]"
  ls $SRC/core* 2>/dev/null && mkdir -p $OUTBASE/rep$i/$c-t$2 && mv $SRC/core* $OUTBASE/rep$i/$c-t$2/
done; done

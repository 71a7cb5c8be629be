#!/bin/bash
# usage: SRC=... OUTBASE=... repeat.sh CFG THREADS N   (runs suite.sh N times into OUTBASE/rep<i>)
here=$(dirname $(readlink -f $0))
for i in $(seq $3); do echo "== rep $i $1 t$2 $(date -u +%T)"; OUTBASE=$OUTBASE/rep$i $here/suite.sh $1 $2; done

#!/bin/bash
# usage: abn.sh ROUNDS SECS ALGO THREADS PROG ARGS... ; libs in $LIBS (name=dir,...)
R=$1; S=$2; A=$3; T=$4; P=$5; shift 5
for i in $(seq 1 $R); do
  for nd in ${LIBS//,/ }; do
    n=${nd%%=*}; lib=${nd#*=}
    v=$(env -u TMKIT_STATS LD_LIBRARY_PATH=$lib TMKIT_ALGO=$A $EXTRA /work/main/build-me/bin/$P-tm --threads $T --seconds $S "$@" | tr ' ' '\n' | grep ops_per_s= | cut -d= -f2)
    echo "$n $v"
  done
done | python3 -c "
import sys,statistics,collections
d=collections.OrderedDict()
for l in sys.stdin:
    k,v=l.split(); d.setdefault(k,[]).append(float(v))
for k,v in d.items(): print(f'{k:6s} median {statistics.median(v)/1e6:8.3f}M  ', ' '.join(f'{x/1e6:.2f}' for x in v))
"

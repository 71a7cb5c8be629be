#!/bin/bash
# Paired runs of a bench program under several libraries / environments, alternated each round.
# usage: LIBS="name=libdir[:VAR=V;VAR2=V2],name2=..." abn.sh ROUNDS SECS ALGO THREADS PROG ARGS...
# (PROG: micro, rbtree, ...: build-me/bin/PROG-tm; EXTRA="VAR=V" applies to every config)
# prints, per config, the median ops/s and every round's value
R=$1; S=$2; A=$3; T=$4; P=$5; shift 5
for i in $(seq 1 $R); do
  for nd in ${LIBS//,/ }; do
    n=${nd%%=*}; rest=${nd#*=}; lib=${rest%%:*}; envs=""
    [ "$rest" != "$lib" ] && envs=${rest#*:}
    v=$(env -u TMKIT_STATS LD_LIBRARY_PATH=$lib TMKIT_ALGO=$A $EXTRA ${envs//;/ } /work/main/build-me/bin/$P-tm --threads $T --seconds $S "$@" | tr ' ' '\n' | grep ops_per_s= | cut -d= -f2)
    echo "$n $v"
  done
done | python3 -c "
import sys,statistics,collections
d=collections.OrderedDict()
for l in sys.stdin:
    k,v=l.split(); d.setdefault(k,[]).append(float(v))
for k,v in d.items(): print(f'{k:10s} median {statistics.median(v)/1e6:8.3f}M  ', ' '.join(f'{x/1e6:.2f}' for x in v))
"

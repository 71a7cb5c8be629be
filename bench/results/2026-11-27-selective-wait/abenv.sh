#!/bin/bash
# usage: abenv.sh ROUNDS SECS THREADS PROG ARGS... ; configs in $CFGS: "name:ENV=V,ENV2=V;name2:..." run with build-me lib
R=$1; S=$2; T=$3; P=$4; shift 4
IFS=';' read -ra C <<< "$CFGS"
for i in $(seq 1 $R); do
  for c in "${C[@]}"; do
    n=${c%%:*}; e=${c#*:}; lib=/work/main/build-me/lib
    v=$(env -u TMKIT_STATS LD_LIBRARY_PATH=$lib ${e//,/ } /work/main/build-me/bin/$P-tm --threads $T --seconds $S "$@" | tr ' ' '\n' | grep ops_per_s= | cut -d= -f2)
    echo "$n $v"
  done
done | python3 -c "
import sys,statistics,collections
d=collections.OrderedDict()
for l in sys.stdin:
    k,v=l.split(); d.setdefault(k,[]).append(float(v))
for k,v in d.items(): print(f'{k:10s} median {statistics.median(v)/1e6:8.3f}M  ', ' '.join(f'{x/1e6:.2f}' for x in v))
"

#!/bin/bash
# valmatrix.sh OUT ROUNDS "CONTAINERS" "THREADS": libstdc++_validation tests x configuration.
here=$(cd "$(dirname "$0")" && pwd)
out=$1 rounds=$2 conts=$3 threads=${4:-"1 2 4"}
cfgs=${VAL_CFGS:-"libitm libitm-gl_wt libitm-serialirr adaptive orec_eager gl_wt serialirr norec orec_lazy"}
echo "# start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"
for c in $conts; do "$here/valid1.sh" $c ref 1 ref >>"$out"; done
for r in $(seq 1 "$rounds"); do
  for c in $conts; do
    for cfg in $cfgs; do
      for t in $threads; do "$here/valid1.sh" $c $cfg $t r$r >>"$out"; done
    done
  done
done
echo "# end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"

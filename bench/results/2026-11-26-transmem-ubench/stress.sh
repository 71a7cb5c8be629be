#!/bin/bash
# stress.sh OUT ROUNDS: longer ubench runs (UB_X=500000 transactions per thread) of the set
# programs, tmkit's write-through modes and libitm, 2 and 4 threads, def and hot workloads.
here=$(cd "$(dirname "$0")" && pwd)
out=$1 rounds=$2
echo "# start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"
for r in $(seq 1 "$rounds"); do
  for prog in Tree StdSet List Hash; do
    for wl in hot def; do
      for cfg in adaptive orec_eager gl_wt serialirr libitm; do
        for t in 2 4; do UB_X=500000 "$here/run1.sh" $prog $wl $cfg $t s$r >>"$out"; done
      done
    done
  done
done
echo "# end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"

#!/bin/bash
# bbmatrix.sh OUT ROUNDS: bounded-buffer (check variant) x configuration x producers/consumers.
here=$(cd "$(dirname "$0")" && pwd)
out=$1 rounds=$2
cfgs=${BB_CFGS:-"libitm libitm-gl_wt libitm-serialirr adaptive orec_eager gl_wt serialirr norec orec_lazy"}
echo "# start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"
for r in $(seq 1 "$rounds"); do
  for bp in "2 0" "3 0" "4 0" "3 1" "4 1"; do
    set -- $bp
    for cfg in $cfgs; do
      for pc in "1 1" "2 2" "4 4" "5 3"; do
        PRELOAD=$2 "$here/bb1.sh" $1 $cfg $pc r$r >>"$out"
      done
    done
  done
done
echo "# end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"

#!/bin/bash
# bbstress.sh OUT ROUNDS: bounded-buffer tm variants with 240000 items, write-through tmkit modes
# and libitm, 4p/4c and 5p/3c.
here=$(cd "$(dirname "$0")" && pwd)
out=$1 rounds=$2
echo "# start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"
for r in $(seq 1 "$rounds"); do
  for bp in "4 1" "4 0" "2 0" "3 1"; do
    set -- $bp
    for cfg in libitm adaptive orec_eager gl_wt serialirr; do
      for pc in "4 4" "5 3"; do
        ITEMS=240000 PRELOAD=$2 "$here/bb1.sh" $1 $cfg $pc s$r >>"$out"
      done
    done
  done
done
echo "# end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"

#!/bin/bash
# matrix.sh OUT ROUNDS [THREADS...]: ROUNDS rounds of every ubench program x workload x
# configuration x thread count through run1.sh; result lines appended to OUT.
here=$(cd "$(dirname "$0")" && pwd)
out=$1 rounds=$2; shift 2
threads=${*:-1 2 4 8}
cfgs=${UB_CFGS:-"libitm libitm-gl_wt libitm-serialirr adaptive orec_eager gl_wt serialirr norec orec_lazy"}
echo "# start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"
for r in $(seq 1 "$rounds"); do
  for prog in Counter Hash List Tree StdSet; do
    wls="def hot big"; [ $prog = Counter ] && wls=def
    for wl in $wls; do
      for cfg in $cfgs; do
        for t in $threads; do
          "$here/run1.sh" $prog $wl $cfg $t r$r >>"$out"
        done
      done
    done
  done
done
echo "# end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"

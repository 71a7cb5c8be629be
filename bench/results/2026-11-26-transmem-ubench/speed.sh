#!/bin/bash
# speed.sh OUT ROUNDS: throughput of the unmodified ubench binaries, libitm (default method)
# against tmkit (default, adaptive), 1 s runs (-d 1), each under flock /tmp/bench.lock.
# Line: prog threads config round throughput(txns/s)
UB=${UB:-/tmp/ubench-tm/benchmarks/ubench/obj64}
RT_LIB=${RT_LIB:-/work/main/build-ubench/lib}
out=$1 rounds=$2
echo "# start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"
for r in $(seq 1 "$rounds"); do
  for prog in Counter Hash List Tree StdSet; do
    for t in 1 2 4; do
      for cfg in libitm adaptive; do
        envs=(); [ $cfg = adaptive ] && envs=(LD_LIBRARY_PATH=$RT_LIB)
        tp=$(flock /tmp/bench.lock env "${envs[@]}" timeout 60 "$UB/${prog}Bench" -d 1 -p $t \
             -m 256 -R 34 2>&1 | sed -n 's/.*throughput=\([0-9]*\).*/\1/p')
        echo "$prog $t $cfg $r ${tp:-FAIL}" >>"$out"
      done
    done
  done
done
echo "# end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"

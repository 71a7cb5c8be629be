#!/bin/bash
# hunt.sh: run TreeBench (norec, 8 threads) until a run is alive after 10 s, then gcore it into /tmp/norechang
B=/tmp/ubench-tm/benchmarks/ubench_chk/obj64/TreeBench
for i in $(seq 1 ${N:-300}); do
  LD_LIBRARY_PATH=/work/main/build-norechang/lib TMKIT_ALGO=norec $B -m 16 -R 0 -X 100000 -p 8 > run.out 2>&1 &
  pid=$!
  for s in $(seq 1 20); do sleep 0.5; kill -0 $pid 2>/dev/null || break; done
  if kill -0 $pid 2>/dev/null; then
    echo "run $i pid $pid HUNG"; echo $pid > hung.pid
    gcore -o /tmp/norechang/core $pid > gcore.log 2>&1
    exit 0
  fi
  wait $pid; echo "run $i rc=$?"
done

#!/bin/bash
# hunt.sh ALGO N PROG ARGS...: run the ubench_chk program N times on tmkit (RT_LIB); a run still
# alive after 15 s gets four gdb backtraces of all threads, 1 s apart, in $OUT/hunt-gdb-RUN-K.txt
algo=$1 n=$2 prog=$3; shift 3
OUT=${OUT:-/tmp/ubench-runs} RT_LIB=${RT_LIB:?} UB_BIN=${UB_BIN:-/tmp/ubench-tm/benchmarks/ubench_chk/obj64}
for i in $(seq 1 $n); do
  LD_LIBRARY_PATH=$RT_LIB TMKIT_ALGO=$algo $UB_BIN/$prog "$@" > $OUT/hunt-$i.out 2>&1 &
  pid=$!
  for s in $(seq 1 30); do sleep 0.5; kill -0 $pid 2>/dev/null || break; done
  if kill -0 $pid 2>/dev/null; then
    echo "run $i pid $pid alive after 15 s"
    for k in 1 2 3 4; do timeout 60 gdb -q -batch -p $pid -ex "thread apply all bt 8" -ex "info locals" > $OUT/hunt-gdb-$i-$k.txt 2>&1; sleep 1; done
    kill -9 $pid; wait $pid 2>/dev/null
  else
    wait $pid; echo "run $i rc=$? $(grep Keys $OUT/hunt-$i.out)"
  fi
done

#!/bin/bash
# count.sh N: N runs of TreeBench under norec with the env given (e.g. TMKIT_PRIVATIZATION=quiesce); counts hangs (alive after 10 s)
B=/tmp/ubench-tm/benchmarks/ubench_chk/obj64/TreeBench
hang=0 ok=0
for i in $(seq 1 $1); do
  env LD_LIBRARY_PATH=/work/main/build-norechang/lib TMKIT_ALGO=norec "${@:2}" timeout 10 $B -m 16 -R 0 -X 100000 -p 8 > /dev/null 2>&1
  rc=$?; if [ $rc = 124 ]; then hang=$((hang+1)); elif [ $rc = 0 ]; then ok=$((ok+1)); fi
done
echo "env: ${@:2} runs $1 ok $ok hangs $hang"

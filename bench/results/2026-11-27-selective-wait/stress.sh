#!/bin/bash
# stress the privatization tests under orec_eager (and adaptive) with several thread counts
B=/work/main/build-me/tests
fail=0
for it in $(seq 1 ${1:-5}); do
 for t in mt_privatize mt_proxy_privatize mt_privatize_reuse mt_privatize_alloc_reuse mt_privatize_unmap mt_publish mt_no_privatization mt_own_writes mt_bank_many mt_lock_records; do
  for th in 2 3 8; do
   for algo in orec_eager adaptive; do
    out=$(LD_LIBRARY_PATH=/work/main/build-me/lib TMKIT_ALGO=$algo EXPECT_RUNTIME=tmkit TEST_THREADS=$th timeout 120 $B/conf_${t}_O2 2>&1) || { echo "FAIL $t $th $algo: $out" | tail -3; fail=$((fail+1)); }
   done
  done
 done
done
echo "failures: $fail"

#!/bin/sh
# alternated A/B of the changed tests: before (HEAD's scripts/args), after (the working tree's)
A=/tmp/trim-ab
for i in 1 2; do
  for v in before after; do
    cd $A/$v && rm -rf Testing
    echo "=== $v run $i: $(date -u) load $(cut -d' ' -f1-3 /proc/loadavg)"
    s=$(date +%s.%N)
    ctest -j2 --timeout 300 --output-on-failure > $A/$v.$i.log 2>&1; rc=$?
    e=$(date +%s.%N)
    echo "$v $i rc=$rc wall=$(echo "$e - $s" | bc) load $(cut -d' ' -f1-3 /proc/loadavg)"
    grep -E "Test +#" $A/$v.$i.log | awk '{print "   ", $4, $(NF-1)}'
  done
done

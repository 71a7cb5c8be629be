#!/bin/sh
# linecost beside one 8-thread conformance test (a ctest -j2 neighbour), default turns vs 2000
B=/work/main/build-trim
for i in 1 2; do
  for turns in "" 2000; do
    ( while [ ! -e /tmp/trim-ab/stop ]; do env TMKIT_ALGO=orec_eager LD_LIBRARY_PATH=$B/lib TEST_THREADS=8 $B/tests/conf_mt_counter_O2 >/dev/null 2>&1; done ) &
    bg=$!
    sleep 1
    s=$(date +%s.%N); timeout 120 $B/bin/linecost $turns; rc=$?; e=$(date +%s.%N)
    touch /tmp/trim-ab/stop; wait $bg; rm -f /tmp/trim-ab/stop
    echo "turns=${turns:-default} rc=$rc wall=$(echo "$e - $s" | bc) load $(cut -d' ' -f1 /proc/loadavg)"
  done
done

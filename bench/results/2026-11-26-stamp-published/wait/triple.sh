#!/bin/bash
# time = program's Time; args: BENCH THREADS ROUNDS
O=/tmp/stamp/benchmarks/stamp_c/obj64; I=/tmp/stamp/inputs
B=$1; T=$2; N=$3
case $B in
 vacation) CMD="$O/vacation_chk/vacation_chk -n4 -q60 -u90 -r32768 -T65536 -t$T";;
 intruderL) CMD="$O/intruder/intruder -a10 -l16 -n65536 -s1 -t$T";;
 kmeans) CMD="$O/kmeans_out/kmeans_out -m15 -n15 -T0.00001 -i $I/random-n16384-d16-c16.txt -t$T";;
 genome) CMD="$O/genome/genome -g256 -s16 -n16384 -t$T";;
esac
for r in $(seq 1 $N); do
 for lib in old:/tmp/stamp-pub/build-old/lib new:/tmp/stamp-pub/build-new/lib wait:/work/main/build-me/lib; do
  t=$(LD_LIBRARY_PATH=${lib#*:} TMKIT_ALGO=orec_eager timeout 120 $CMD 2>&1 | grep -E '^Time *=' | tail -1 | sed 's/.*= *//')
  echo "$B t=$T ${lib%%:*} $t"
 done
done

#!/bin/bash
# usage: [LIB=new|old] run1.sh BENCH ALGO THREADS REP -> one line to stdout; log in /tmp/stamp-pub/runs
# (copy of ../2026-11-26-stamp-gv5/run1.sh; library /tmp/stamp-pub/build-$LIB/lib)
B=$1; A=$2; T=$3; R=$4
O=/tmp/stamp/benchmarks/stamp_c/obj64; I=/tmp/stamp/inputs
case $B in
 genome) CMD="$O/genome/genome -g256 -s16 -n16384 -t$T";;
 genomeL) CMD="$O/genome/genome -g4096 -s32 -n65536 -t$T";;
 intruder) CMD="$O/intruder/intruder -a10 -l16 -n4096 -s1 -t$T";;
 intruderL) CMD="$O/intruder/intruder -a10 -l16 -n65536 -s1 -t$T";;
 vacation) CMD="$O/vacation_chk/vacation_chk -n4 -q60 -u90 -r32768 -T65536 -t$T";;
 vacationC) CMD="$O/vacation_chk/vacation_chk -n4 -q60 -u90 -r4096 -T65536 -t$T";;
 vacationH) CMD="$O/vacation_chk/vacation_chk -n2 -q90 -u98 -r4096 -T65536 -t$T";;
 kmeans) CMD="$O/kmeans_out/kmeans_out -m15 -n15 -T0.00001 -i $I/random-n16384-d16-c16.txt -t$T";;
 ssca2) CMD="$O/ssca2_chk/ssca2_chk -s13 -i1.0 -u1.0 -l3 -p3 -t$T";;
 labyrinth) CMD="$O/labyrinth/labyrinth -i $I/random-x64-y64-z3-n64.txt -t$T";;
 labyrinthL) CMD="$O/labyrinth/labyrinth -i $I/random-x128-y128-z3-n128.txt -t$T";;
esac
L=${LIB:-new}; LOG=/tmp/stamp-pub/runs/$B-$A-$L-t$T-r$R.log
if [ $A = libitm ]; then ENV="env -u LD_LIBRARY_PATH"; else ENV="env LD_LIBRARY_PATH=/tmp/stamp-pub/build-$L/lib TMKIT_ALGO=$A"; fi
echo "# $ENV $CMD" > $LOG
${LOCK:-flock /tmp/bench.lock} /usr/bin/time -f %e -o $LOG.wall $ENV timeout 120 $CMD >> $LOG 2>&1
RC=$?
WALL=$(tail -1 $LOG.wall)
TIME=$(grep -E '^Time *=' $LOG | tail -1 | sed 's/.*= *//')
OK=?
case $B in
 genome*) grep -q 'Sequence matches gene: yes' $LOG && OK=ok || OK=BAD;;
 intruder*) a=$(grep 'Num attack' $LOG | awk '{print $NF}'); f=$(grep 'Num found' $LOG | awk '{print $NF}'); [ -n "$a" ] && [ "$a" = "$f" ] && OK=ok || OK=BAD;;
 vacation*) grep -q 'Post-check: ok' $LOG && OK=ok || OK=BAD;;
 labyrinth*) grep -q 'Verification passed' $LOG && OK=ok || OK=BAD;;
 ssca2) d=$(grep Digest $LOG | awk '{print $2,$3,$4,$6,$7,$8}'); [ "$d" = "V=8192 E=59511 dir=101370 int=35634 str=23877 out=50685" ] && OK=ok || OK=BAD;;
 kmeans) python3 /tmp/stamp/kcmp.py /tmp/stamp/kmeans.ref $LOG >/dev/null && OK=ok || OK=BAD;;
esac
[ $RC -ne 0 ] && OK=BAD
echo "$B $A $T $R lib=$L rc=$RC $OK time=$TIME wall=$WALL"

#!/bin/bash
# usage: run1.sh VARIANT BENCH ALGO THREADS REP -> one result line on stdout; log in $RUNS
# VARIANT: cxx (benchmarks/stamp_c++) or stl (benchmarks/stamp_c++_stl); ALGO: libitm (system
# GCC 12 libitm), adaptive (tmkit, TMKIT_ALGO unset) or a TMKIT_ALGO value.
V=$1; B=$2; A=$3; T=$4; R=$5
SRC=${SRC:-/tmp/stampxx/src/benchmarks}; I=${INPUTS:-/tmp/stampxx/inputs}
RT_LIB=${RT_LIB:-/work/main/build-stampxx/lib}; RUNS=${RUNS:-/tmp/stampxx/runs}
REF=${REF:-/tmp/stampxx/ref}; TMO=${TMO:-60}
case $V in cxx) O=$SRC/stamp_c++/obj64;; stl) O=$SRC/stamp_c++_stl/obj64;; esac
case $B in
 genome) CMD="$O/genome/genome -g4096 -s32 -n65536 -t$T";;
 intruder) CMD="$O/intruder/intruder -a10 -l16 -n32768 -s1 -t$T";;
 vacation) CMD="$O/vacation_chk/vacation_chk -n4 -q60 -u90 -r32768 -T16384 -t$T";;
 vacationH) CMD="$O/vacation_chk/vacation_chk -n2 -q90 -u98 -r4096 -T32768 -t$T";;
 kmeans) CMD="$O/kmeans_out/kmeans_out -m15 -n15 -T0.001 -i $I/random-n16384-d16-c16.txt -t$T";;
 ssca2) CMD="$O/ssca2_chk/ssca2_chk -s14 -i1.0 -u1.0 -l3 -p3 -t$T";;
 labyrinth) CMD="$O/labyrinth/labyrinth -i $I/random-x128-y128-z3-n128.txt -t$T";;
 yada) CMD="$O/yada_chk/yada_chk -a15 -i $I/ttimeu10000.2 -t$T";;
 bayes) CMD="$O/bayes/bayes -v32 -r1024 -n2 -p20 -i2 -e2 -s0 -t$T";;
esac
LOG=$RUNS/$V-$B-$A-t$T-r$R.log
case $A in
 libitm) ENV="env -u LD_LIBRARY_PATH -u TMKIT_ALGO";;
 adaptive) ENV="env -u TMKIT_ALGO LD_LIBRARY_PATH=$RT_LIB";;
 *) ENV="env LD_LIBRARY_PATH=$RT_LIB TMKIT_ALGO=$A";;
esac
echo "# $ENV timeout $TMO $CMD" > $LOG
${LOCK:-flock /tmp/bench.lock} /usr/bin/time -f %e -o $LOG.wall $ENV timeout $TMO $CMD >> $LOG 2>&1
RC=$?
WALL=$(tail -1 $LOG.wall)
OK=BAD
case $B in
 genome) grep -q 'Sequence matches gene: yes' $LOG && OK=ok;;
 intruder) a=$(grep 'Num attack' $LOG | awk '{print $NF}'); f=$(grep 'Num found' $LOG | awk '{print $NF}'); [ -n "$a" ] && [ "$a" = "$f" ] && OK=ok;;
 vacation*) grep -q "Post-check: ok" $LOG && grep -q "Checking tables... done" $LOG && OK=ok;;
 labyrinth) grep -q 'Verification passed' $LOG && OK=ok;;
 ssca2) d=$(grep Digest $LOG | awk '{print $2,$3,$4,$6,$7,$8}'); [ -n "$d" ] && [ "$d" = "$(cat $REF/$V-ssca2.digest)" ] && OK=ok;;
 kmeans) python3 /tmp/stampxx/kcmp.py $REF/$V-kmeans.ref $LOG >/dev/null && OK=ok;;
 yada) grep -q 'Final mesh is valid' $LOG && grep -q 'Number of bad triangles = 0' $LOG && OK=ok;;
 bayes) grep -q 'Learn score' $LOG && OK=ok;;
esac
[ $RC -ne 0 ] && OK=BAD
echo "$V $B $A $T $R rc=$RC $OK wall=$WALL"

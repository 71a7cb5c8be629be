#!/bin/bash
# usage: statrun.sh LIB BENCH ALGO THREADS REP [PRIV] -> one line: Time and TMKIT_STATS totals
L=$1; B=$2; A=$3; T=$4; R=$5; P=${6:-auto}
O=/tmp/stamp/benchmarks/stamp_c/obj64; I=/tmp/stamp/inputs
case $B in
 genome) CMD="$O/genome/genome -g256 -s16 -n16384 -t$T";;
 genomeL) CMD="$O/genome/genome -g4096 -s32 -n65536 -t$T";;
 intruder) CMD="$O/intruder/intruder -a10 -l16 -n4096 -s1 -t$T";;
 intruderL) CMD="$O/intruder/intruder -a10 -l16 -n65536 -s1 -t$T";;
 vacation) CMD="$O/vacation_chk/vacation_chk -n4 -q60 -u90 -r32768 -T65536 -t$T";;
 vacationH) CMD="$O/vacation_chk/vacation_chk -n2 -q90 -u98 -r4096 -T65536 -t$T";;
 kmeans) CMD="$O/kmeans_out/kmeans_out -m15 -n15 -T0.00001 -i $I/random-n16384-d16-c16.txt -t$T";;
esac
J=/tmp/stamp-pub/stats/$B-$A-$L-t$T-$P-$R.json; mkdir -p /tmp/stamp-pub/stats
OUT=$(flock /tmp/bench.lock env LD_LIBRARY_PATH=/tmp/stamp-pub/build-$L/lib TMKIT_ALGO=$A TMKIT_PRIVATIZATION=$P TMKIT_STATS=$J timeout 120 $CMD 2>&1)
RC=$?
TIME=$(echo "$OUT" | grep -E '^Time *=' | tail -1 | sed 's/.*= *//')
python3 - "$J" "$B $A $T $R lib=$L priv=$P rc=$RC time=$TIME" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); t = {}
for s in d['sites']:
    for k in d['counters']:
        if isinstance(s.get(k), (int, float)): t[k] = t.get(k, 0) + s[k]
c = t['commits']
print(sys.argv[2], "commits=%d aborts=%d (read=%d write=%d valid=%d) serial=%d quiesce_cyc/commit=%.0f serialwait_Mcyc=%.0f aborted_Mcyc=%.0f" % (
    c, t['starts'] - c, t['abort_read_conflict'], t['abort_write_conflict'], t['abort_validation'],
    t['serial_attempts'], t['cycles_quiesce_wait'] / c, t['cycles_serial_wait'] / 1e6, t['cycles_aborted'] / 1e6))
PY

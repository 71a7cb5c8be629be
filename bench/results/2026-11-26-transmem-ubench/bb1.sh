#!/bin/bash
# One run of transmem tests/tmcondvar_validation's bounded-buffer, check variant (see README).
# usage: bb1.sh BENCH CONFIG PRODUCERS CONSUMERS TAG
#   BENCH: 2 (tm + semaphore), 3 (mutex + tmcondvar), 4 (tm + tmcondvar), 0 (mutex + condvar)
# Items: 12000 in all (ITEMS=N: N); buffer size 8, preload 0 (the semaphore variants ignore the preload,
# see README), 0.5 for the tmcondvar variants when PRELOAD=1.
# Pass: exit 0 within 120 s and the program's "Check ...: ok" line.
BB=${BB:-/tmp/ubench-tm/tests/tmcondvar_chk/obj64/bounded-buffer}
RT_LIB=${RT_LIB:-/work/main/build-ubench/lib}
LOGS=${LOGS:-/tmp/ubench-runs/blogs}
b=$1 cfg=$2 np=$3 nc=$4 tag=$5
total=${ITEMS:-12000} pl=0
[ "${PRELOAD:-0}" = 1 ] && pl=0.5
mkdir -p "$LOGS"
log=$LOGS/bb$b-$cfg-$np-$nc-$pl-$tag.log stats=$LOGS/bb$b-$cfg-$np-$nc-$pl-$tag.json
rm -f "$stats"
envs=()
case $cfg in
  libitm) ;;
  libitm-*) envs=(ITM_DEFAULT_METHOD=${cfg#libitm-}) ;;
  adaptive) envs=(LD_LIBRARY_PATH=$RT_LIB TMKIT_STATS=$stats) ;;
  *) envs=(LD_LIBRARY_PATH=$RT_LIB TMKIT_ALGO=$cfg TMKIT_STATS=$stats) ;;
esac
t0=$(date +%s.%N)
env "${envs[@]}" timeout 120 "$BB" -r "$b" -m "$np" -n "$nc" -p $((total / np)) \
    -c $((total / nc)) -s 8 -l $pl >"$log" 2>&1
rc=$?
wall=$(echo "$(date +%s.%N) - $t0" | bc)
reason=ok
if [ $rc -ne 0 ]; then reason=exit$rc
elif ! grep -q '^Check .*: ok' "$log"; then reason=check
else case $cfg in libitm*) ;; *) [ "$b" = 0 ] || [ -s "$stats" ] || reason=nostats ;; esac
fi
st=ok; [ $reason = ok ] || st=BAD
echo "bb$b pre$pl $cfg $np $nc $tag $rc $st $reason $wall"

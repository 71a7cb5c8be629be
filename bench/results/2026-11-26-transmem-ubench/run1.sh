#!/bin/bash
# One checked run of a transmem ubench check binary (ubench_chk, see README).
# usage: run1.sh PROG WORKLOAD CONFIG THREADS TAG
#   PROG: Counter Hash List Tree StdSet
#   WORKLOAD: def (-m256 -R34), hot (-m16 -R0), big (-m65536 -R34; List: -m1024)
#   CONFIG: libitm libitm-gl_wt libitm-serialirr | adaptive orec_eager gl_wt serialirr norec orec_lazy
# Prints one line: prog workload config threads tag rc ok|BAD reason wall_s
# Env: UB_BIN (ubench_chk/obj64), RT_LIB (tmkit lib dir), LOGS (log dir), UB_X (txns per thread)
UB_BIN=${UB_BIN:-/tmp/ubench-tm/benchmarks/ubench_chk/obj64}
RT_LIB=${RT_LIB:-/work/main/build-ubench/lib}
LOGS=${LOGS:-/tmp/ubench-runs/logs}
X=${UB_X:-20000}
prog=$1 wl=$2 cfg=$3 thr=$4 tag=$5
mkdir -p "$LOGS"
case $wl in
  def) args="-m 256 -R 34" ;;
  hot) args="-m 16 -R 0" ;;
  big) if [ "$prog" = List ]; then args="-m 1024 -R 34"; else args="-m 65536 -R 34"; fi ;;
  *) echo "bad workload $wl" >&2; exit 2 ;;
esac
log=$LOGS/$prog-$wl-$cfg-$thr-$tag.log
stats=$LOGS/$prog-$wl-$cfg-$thr-$tag.json
rm -f "$stats"
envs=()
case $cfg in
  libitm) ;;
  libitm-*) envs=(ITM_DEFAULT_METHOD=${cfg#libitm-}) ;;
  adaptive) envs=(LD_LIBRARY_PATH=$RT_LIB TMKIT_STATS=$stats) ;;
  *) envs=(LD_LIBRARY_PATH=$RT_LIB TMKIT_ALGO=$cfg TMKIT_STATS=$stats) ;;
esac
t0=$(date +%s.%N)
env "${envs[@]}" timeout 120 "$UB_BIN/${prog}Bench" $args -X "$X" -p "$thr" >"$log" 2>&1
rc=$?
t1=$(date +%s.%N)
wall=$(echo "$t1 - $t0" | bc)
reason=ok
if [ $rc -ne 0 ]; then reason=exit$rc
elif ! grep -q '^Verification: Passed' "$log"; then reason=verify
else
  # txns must be threads * X
  txns=$(sed -n 's/.*txns=\([0-9]*\),.*/\1/p' "$log")
  [ "$txns" = $((thr * X)) ] || reason=txns
  if [ "$prog" = Counter ]; then
    first=$(grep -m1 '^Counter value' "$log" | awk '{print $4}')
    last=$(grep '^Counter value' "$log" | tail -1 | awk '{print $4}')
    [ "$last" = $((first + thr * X)) ] || reason=counter
  else
    read -r before after < <(sed -n 's/^Keys before: \(-*[0-9]*\) after: \(-*[0-9]*\)/\1 \2/p' "$log")
    ih=$(sed -n 's/.*i:\([0-9]*\)\/.*/\1/p' "$log")
    rh=$(sed -n 's/.*r:\([0-9]*\)\/.*/\1/p' "$log")
    [ -n "$after" ] && [ "$after" = $((before + ih - rh)) ] || reason=keys
  fi
  # tmkit runs must have written a profile (proves tmkit's libitm was loaded)
  case $cfg in libitm*) ;; *) [ -s "$stats" ] || reason=nostats ;; esac
fi
st=ok; [ $reason = ok ] || st=BAD
echo "$prog $wl $cfg $thr $tag $rc $st $reason $wall"

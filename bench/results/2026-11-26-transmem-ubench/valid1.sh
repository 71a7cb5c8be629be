#!/bin/bash
# One run of a transmem tests/libstdc++_validation container test (bench_tm -n THREADS).
# usage: valid1.sh CONTAINER CONFIG THREADS TAG
# Pass: exit 0 and the output, thread numbers replaced by "t" and duplicate lines dropped, equal
# to the reference (libitm, 1 thread, made by the first call with CONFIG=ref).
# Env: VAL_DIR (tests/libstdc++_validation of the transmem copy), RT_LIB, LOGS
VAL_DIR=${VAL_DIR:-/tmp/ubench-tm/tests/libstdc++_validation}
RT_LIB=${RT_LIB:-/work/main/build-ubench/lib}
LOGS=${LOGS:-/tmp/ubench-runs/vlogs}
c=$1 cfg=$2 thr=$3 tag=$4
mkdir -p "$LOGS"
log=$LOGS/$c-$cfg-$thr-$tag.log stats=$LOGS/$c-$cfg-$thr-$tag.json
envs=()
case $cfg in
  ref|libitm) ;;
  libitm-*) envs=(ITM_DEFAULT_METHOD=${cfg#libitm-}) ;;
  adaptive) envs=(LD_LIBRARY_PATH=$RT_LIB TMKIT_STATS=$stats) ;;
  *) envs=(LD_LIBRARY_PATH=$RT_LIB TMKIT_ALGO=$cfg TMKIT_STATS=$stats) ;;
esac
# threads print to std::cout at once, so a line may carry another thread's "[1" prefix or lose
# its own: leading brackets, digits and blanks are dropped too
norm() { sed -E 's/\[[0-9]+\]/[t]/g; s/thread [0-9]+/thread t/g; s/^[][0-9t ]*//' "$1" | grep -v '^$' | sort -u; }
if [ -z "$CHECK_ONLY" ]; then
rm -f "$stats"
t0=$(date +%s.%N)
# the binary's rpath to the transactional libstdc++ is relative: run from its directory
# every test by number (-T is in the usage text but not in the getopt string; list has no -t)
n=$(sed -n 's/.*\(define NUM_TESTS\|int NUM_TESTS =\) *\([0-9]*\).*/\2/p' "$VAL_DIR/$c/bench.cc")
targs=(); [ -n "$n" ] && for i in $(seq 1 $((n - 1))); do targs+=(-t $i); done
(cd "$VAL_DIR/$c" && env "${envs[@]}" timeout 300 ./obj64/bench_tm -n "$thr" "${targs[@]}") >"$log" 2>&1
rc=$?
wall=$(echo "$(date +%s.%N) - $t0" | bc)
echo "$rc $wall" >"$log.rc"
else
  # CHECK_ONLY=1: judge an earlier run's log again (same norm), do not run
  read -r rc wall <"$log.rc" || { rc=$(sed -n 's/.* \([0-9]*\) \(ok\|BAD\) [a-z0-9]* [.0-9]*$/\1/p' <<<"$PREV"); wall=${PREV##* }; }
fi
if [ "$cfg" = ref ]; then norm "$log" >"$LOGS/$c.ref"; fi
reason=ok
if [ $rc -ne 0 ]; then reason=exit$rc
elif ! cmp -s <(norm "$log") "$LOGS/$c.ref"; then reason=output
else case $cfg in ref|libitm*) ;; *) [ -s "$stats" ] || reason=nostats ;; esac
fi
st=ok; [ $reason = ok ] || st=BAD
echo "$c $cfg $thr $tag $rc $st $reason $wall"

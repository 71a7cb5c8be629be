#!/bin/bash
# usage: suite.sh CFG THREADS   CFG: libitm | libitm-serialirr | adaptive | orec_eager | gl_wt | serialirr
cfg=$1; t=$2
out=${OUTBASE:?}/$cfg-t$t; rm -rf $out; mkdir -p $out
cd ${SRC:?set SRC to the built memcached directory}
unset LD_LIBRARY_PATH TMKIT_ALGO ITM_DEFAULT_METHOD
case $cfg in
  libitm) ;;
  libitm-*) export ITM_DEFAULT_METHOD=${cfg#libitm-} ;;
  *) export LD_LIBRARY_PATH=${TMLIB:-/work/main/build-mccv/lib} TMKIT_ALGO=$cfg ;;
esac
export MC_THREADS=$t
{ echo "cfg=$cfg threads=$t LD_LIBRARY_PATH=$LD_LIBRARY_PATH TMKIT_ALGO=$TMKIT_ALGO ITM_DEFAULT_METHOD=$ITM_DEFAULT_METHOD"; date -u; } > $out/env
./sizes > $out/sizes.log 2>&1; echo "sizes rc=$?" > $out/summary
timeout 300 ./testapp > $out/testapp.log 2>&1; rc=$?
echo "testapp rc=$rc ok=$(grep -c '^ok' $out/testapp.log) notok=$(grep -c '^not ok' $out/testapp.log) of $(head -1 $out/testapp.log)" >> $out/summary
timeout 1500 prove -j2 --timer --exec 'timeout 150 perl' t > $out/prove.log 2>&1; rc=$?
echo "prove rc=$rc $(grep -E '^Files=|^Result' $out/prove.log | tr '\n' ' ')" >> $out/summary
grep -E "^t/.*(Failed|Wstat|Dubious|NOK|not ok)|^Failed tests" $out/prove.log | grep -v "^t/.* ok$" >> $out/summary
date -u >> $out/env
cat $out/summary

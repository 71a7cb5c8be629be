#!/bin/bash
# usage: SRC=... OUT=... crashloop.sh "CFGS" THREADS SECONDS PORT
# alternating configurations: a fresh server (-o hashpower=12,slab_reassign,slab_automove=2),
# memcslap default then get (8 clients), then a stats check; stops after SECONDS. Cores kept.
here=$(dirname $(readlink -f $0)); cfgs=$1; t=$2; end=$(( $(date +%s) + $3 )); port=$4; mkdir -p $OUT; ulimit -c unlimited; cd $SRC
i=0
while [ $(date +%s) -lt $end ]; do i=$((i+1)); for c in $cfgs; do
  unset LD_LIBRARY_PATH TMKIT_ALGO ITM_DEFAULT_METHOD
  case $c in libitm) ;; libitm-*) export ITM_DEFAULT_METHOD=${c#libitm-} ;; *) export LD_LIBRARY_PATH=${TMLIB:-/work/main/build-mccv/lib} TMKIT_ALGO=$c ;; esac
  ./memcached -l 127.0.0.1 -p $port -U 0 -u root -t $t -o hashpower=12,slab_reassign,slab_automove=2 > $OUT/server-$c-$i.log 2>&1 & pid=$!
  for k in $(seq 50); do python3 -c "import socket;socket.create_connection(('127.0.0.1',$port))" 2>/dev/null && break; sleep 0.1; done
  timeout 120 memcslap --servers=127.0.0.1:$port --concurrency=8 --execute-number=20000 > $OUT/slap-$c-$i.log 2>&1
  timeout 120 memcslap --servers=127.0.0.1:$port --concurrency=8 --execute-number=20000 --test=get >> $OUT/slap-$c-$i.log 2>&1
  alive=$(timeout 5 python3 $here/mcstats.py $port 2>/dev/null | grep -c "^END")
  kill -INT $pid 2>/dev/null; wait $pid; st=$?
  echo "iter $i $c alive=$alive exit=$st slap_errors=$(grep -c -i 'fatal\|failure' $OUT/slap-$c-$i.log)"
  ls core* 2>/dev/null && mkdir -p $OUT/core-$c-$i && mv core* $OUT/core-$c-$i/
done; done

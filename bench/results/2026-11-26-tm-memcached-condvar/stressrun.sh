#!/bin/bash
# usage: stressrun.sh CFG THREADS PORT
cfg=$1; t=$2; port=$3
out=${OUTBASE:?}/$cfg-t$t; rm -rf $out; mkdir -p $out
cd ${SRC:?set SRC to the built memcached directory}
unset LD_LIBRARY_PATH TMKIT_ALGO ITM_DEFAULT_METHOD TMKIT_STATS
case $cfg in
  libitm) ;;
  libitm-*) export ITM_DEFAULT_METHOD=${cfg#libitm-} ;;
  *) export LD_LIBRARY_PATH=${TMLIB:-/work/main/build-mccv/lib} TMKIT_ALGO=$cfg TMKIT_STATS=$out/profile.json ;;
esac
./memcached -l 127.0.0.1 -p $port -U 0 -u root -t $t ${SERVER_OPTS} > $out/server.log 2>&1 &
pid=$!
for i in $(seq 50); do python3 -c "import socket;socket.create_connection(('127.0.0.1',$port))" 2>/dev/null && break; sleep 0.1; done
lib=$(grep -o "/[^ ]*libitm[^ ]*" /proc/$pid/maps | sort -u)
echo "cfg=$cfg t=$t opts=${SERVER_OPTS} libitm=$lib TMKIT_ALGO=$TMKIT_ALGO ITM_DEFAULT_METHOD=$ITM_DEFAULT_METHOD" > $out/summary
timeout 300 memcaslap -s 127.0.0.1:$port -T 2 -c 16 -x 100000 -v 0.1 > $out/memcaslap.log 2>&1; echo "memcaslap rc=$? $(grep -iE 'verify|get_miss|Run time' $out/memcaslap.log | tr '\n' ' ' | cut -c1-300)" >> $out/summary
for r in $(seq ${ROUNDS:-3}); do
  res=$(timeout 300 python3 $(dirname $(readlink -f $0))/stress.py $port 8 300 2>&1); echo "stress $r rc=$? $res" >> $out/summary
done
timeout 300 memcslap --servers=127.0.0.1:$port --concurrency=8 --execute-number=20000 > $out/memcslap-default.log 2>&1; echo "memcslap default rc=$? $(grep -E "Time to (set|get|mget) .*threads" $out/memcslap-default.log)" >> $out/summary
timeout 300 memcslap --servers=127.0.0.1:$port --concurrency=8 --execute-number=20000 --test=get > $out/memcslap-get.log 2>&1; echo "memcslap get rc=$? $(grep -E "Time to (set|get|mget) .*threads" $out/memcslap-get.log)" >> $out/summary
timeout 300 memcslap --servers=127.0.0.1:$port --concurrency=8 --execute-number=20000 --test=set > $out/memcslap-set.log 2>&1; echo "memcslap set rc=$? $(grep -E "Time to (set|get|mget) .*threads" $out/memcslap-set.log)" >> $out/summary
alive=$(timeout 5 python3 -c "
import socket;s=socket.create_connection(('127.0.0.1',$port),timeout=3);s.sendall(b'stats\r\n');d=b''
while not d.endswith(b'END\r\n'):
    x=s.recv(65536)
    if not x: break
    d+=x
open('$out/stats.txt','wb').write(d)
print('alive' if d.endswith(b'END\r\n') else 'dead')" 2>&1 | tail -1)
[ -f $out/stats.txt ] && echo "server stats: $(grep -E 'hash_power_level|hash_is_expanding|curr_items|slabs_moved' $out/stats.txt | tr -d '\r' | tr '\n' ' ')" >> $out/summary
kill -INT $pid; wait $pid; echo "server after load: $alive, exit status $? ($(tr '\n' ' ' < $out/server.log | cut -c1-200))" >> $out/summary
if [ -f $out/profile.json ]; then python3 -c "
import json;p=json.load(open('$out/profile.json'))
tot=lambda k: sum(s.get(k,0) for s in p['sites'])
print('profile: algorithm',p['algorithm'],'commits',tot('commits'),'starts',tot('starts'),'serial_attempts',tot('serial_attempts'),'irrevocable_switches',tot('irrevocable_switches'),'epochs',p.get('adaptive_epochs'),'probes',p.get('adaptive_probes'))" >> $out/summary; fi
cat $out/summary

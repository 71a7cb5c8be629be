#!/bin/bash
# second round: every algorithm at 1 thread 3 more times, and vacation at high contention
cd /tmp/stampxx
(date -u; uptime) > round2.start
./stress.sh cxx 3 1
./stress.sh stl 3 1
BENCHES=vacationH ./matrix.sh cxx 3
BENCHES=vacationH ./matrix.sh stl 3
(date -u; uptime) > round2.end

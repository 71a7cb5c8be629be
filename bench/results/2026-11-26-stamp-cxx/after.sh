#!/bin/bash
# the runs after the first matrices: repeats of the failing cells, more repeats of the rest,
# and vacation with the post-check on stamp_c++
cd /tmp/stampxx
while pgrep -f "matrix.sh stl" >/dev/null; do sleep 5; done
(date -u; uptime) > matrix-stl.end
(date -u; uptime) > stress-stl.start
BENCHES="genome vacation yada bayes" ALGOS="norec orec_lazy" ./stress.sh stl 5 "1 2 4"
(date -u; uptime) > stress-stl.mid
BENCHES="vacation" ./matrix.sh cxx 2
./stress.sh stl 3
(date -u; uptime) > stress-stl.end

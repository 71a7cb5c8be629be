#!/bin/bash
# clean-round.sh: one more round of every tmkit cell on a tmkit built from `git archive` of a
# commit (RT_LIB), results in /tmp/ubench-runs/clean-*.txt.
here=$(cd "$(dirname "$0")" && pwd)
export RT_LIB=${RT_LIB:?set RT_LIB to the clean build\'s lib directory}
tm="adaptive orec_eager gl_wt serialirr norec orec_lazy"
LOGS=/tmp/ubench-runs/clean-vlogs VAL_CFGS="$tm" "$here/valmatrix.sh" /tmp/ubench-runs/clean-val.txt 1 "list deque tuple map pair" "1 2 4"
LOGS=/tmp/ubench-runs/clean-blogs BB_CFGS="$tm" "$here/bbmatrix.sh" /tmp/ubench-runs/clean-bb.txt 1
LOGS=/tmp/ubench-runs/clean-logs UB_X=100000 UB_CFGS="$tm" "$here/matrix.sh" /tmp/ubench-runs/clean-ubench.txt 1 1 2 4 8

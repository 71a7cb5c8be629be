#!/bin/sh
# Before/after of issue 24's web cache: the commands of ../2026-11-25-webcache-events/run.sh
# (`tmkit bench webcache --repeats 1 --build build --no-plots` in each tree's git worktree, built
# with -DCMAKE_BUILD_TYPE=RelWithDebInfo), for ROUNDS rounds (default 4) instead of its fixed
# three, and with the order inside a round alternated (odd rounds: before first; even: after
# first) so a load that drifts during a round does not favour one side.
# usage: run.sh BEFORE_TREE AFTER_TREE [OUT_DIR [ROUNDS]]
#        (then: ../2026-11-25-webcache-events/compare.py OUT_DIR > OUT_DIR/compare.md)
set -e
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "$3" ]; then mkdir -p "$3"; here=$(cd "$3" && pwd); fi
rounds=${4:-4}
r=1
while [ $r -le "$rounds" ]; do
    order="before after"; [ $((r % 2)) -eq 0 ] && order="after before"
    for kind in $order; do
        tree=$1; [ $kind = after ] && tree=$2
        echo "$(date -u +%H:%M:%S) round $r $kind: start (load $(cut -d' ' -f1-3 /proc/loadavg))"
        (cd "$tree" && bin/tmkit bench webcache --repeats 1 --build build --no-plots \
            --out "$here/$kind-$r") > "$here/$kind-$r.log" 2>&1
    done
    r=$((r + 1))
done
echo "$(date -u +%H:%M:%S) done (load $(cut -d' ' -f1-3 /proc/loadavg))"

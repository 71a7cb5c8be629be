#!/bin/sh
# Before/after of the event-driven server (issue 24): the tree before it (47258c3) and after it,
# each in its own git worktree built with -DCMAKE_BUILD_TYPE=RelWithDebInfo, alternated so both
# see the same machine load; three rounds of `tmkit bench webcache --repeats 1` each.
# usage: run.sh BEFORE_TREE AFTER_TREE [OUT_DIR]   (then: compare.py [OUT_DIR] > compare.md)
# OUT_DIR defaults to this directory; 2026-11-25-webcache-lf used it with its own.
set -e
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "$3" ]; then mkdir -p "$3"; here=$(cd "$3" && pwd); fi
for r in 1 2 3; do
    for kind in before after; do
        tree=$1; [ $kind = after ] && tree=$2
        (cd "$tree" && bin/tmkit bench webcache --repeats 1 --build build --no-plots \
            --out "$here/$kind-$r") > "$here/$kind-$r.log" 2>&1
    done
done

#!/bin/sh
# Before/after of the event-driven server (issue 24): the tree before it (47258c3) and after it,
# each in its own git worktree built with -DCMAKE_BUILD_TYPE=RelWithDebInfo, alternated so both
# see the same machine load; three rounds of `tmkit bench webcache --repeats 1` each.
# usage: run.sh BEFORE_TREE AFTER_TREE   (then: compare.py > compare.md)
set -e
here=$(cd "$(dirname "$0")" && pwd)
for r in 1 2 3; do
    for kind in before after; do
        tree=$1; [ $kind = after ] && tree=$2
        (cd "$tree" && bin/tmkit bench webcache --repeats 1 --build build --no-plots \
            --out "$here/$kind-$r") > "$here/$kind-$r.log" 2>&1
    done
done

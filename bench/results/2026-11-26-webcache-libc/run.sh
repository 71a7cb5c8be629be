#!/bin/sh
# The web cache's TM build before and after it relied on tmkit.h's wrapped libc (issue 21):
# BEFORE_TREE has apps/webcache/cache.c as it was before issue 21 (c182237^: keys compared by an
# own loop, the victim's key copied after its transaction under a reference), AFTER_TREE the
# committed tree (memcmp and snprintf inside the transactions). Each tree built with
# -DCMAKE_BUILD_TYPE=RelWithDebInfo. Three rounds of `tmkit bench webcache` at s = 2, 2 workers,
# lock and tm-tmkit (before first in rounds 1 and 3, after first in round 2); then a TMKIT_STATS
# profile of each tree's webcache-tm under the same load (profile.sh). Run under `flock /tmp/bench.lock`.
# usage: run.sh BEFORE_TREE AFTER_TREE [OUT_DIR]   (then: ../2026-11-25-webcache-events/compare.py OUT_DIR)
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=$here
if [ -n "$3" ]; then mkdir -p "$3"; out=$(cd "$3" && pwd); fi
echo "start $(date -u) load $(cut -d' ' -f1-3 /proc/loadavg)" > "$out/run.log"
for r in 1 2 3; do
    order="before after"; [ $r -eq 2 ] && order="after before"   # neither side always first
    for kind in $order; do
        tree=$1; [ $kind = after ] && tree=$2
        (cd "$tree" && bin/tmkit bench webcache --s 2 --threads 2 --builds lock,tm-tmkit \
            --repeats 1 --crosscheck none --build build --no-plots --out "$out/$kind-$r") \
            > "$out/$kind-$r.log" 2>&1
    done
done
for kind in before after; do
    tree=$1; [ $kind = after ] && tree=$2
    sh "$here/profile.sh" "$tree" "$out/profile-$kind" >> "$out/run.log" 2>&1
done
echo "end $(date -u) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/run.log"

#!/bin/sh
# A TMKIT_STATS profile of TREE's webcache-tm under the bench's s = 2 load (2 workers, 6
# connections, 1 s warm-up then 3 s; the bench's cache limits), and `tmkit report` of it.
# usage: profile.sh TREE OUT_PREFIX   (writes OUT_PREFIX.json and OUT_PREFIX.txt)
set -e
tree=$(cd "$1" && pwd); pre=$2
b=$tree/build/bin
tmp=$(mktemp -d)
"$b/webcache-urls" --s 2 --n 100000 --seed 1 > "$tmp/warm.txt"
"$b/webcache-urls" --s 2 --n 400000 --seed 2 > "$tmp/meas.txt"
TMKIT_STATS="$pre.json" "$b/webcache-tm" --port 0 --threads 2 --policy gdsf --max-entries 256 \
    --max-bytes 67108864 > "$tmp/out" 2> "$tmp/err" &
pid=$!
i=0
until grep -q "listening on" "$tmp/out" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 100 ] || { echo "webcache-tm did not start"; cat "$tmp/err"; exit 1; }
    sleep 0.1
done
base=http://$(sed -n 's/.*listening on \([0-9.]*:[0-9]*\).*/\1/p' "$tmp/out" | head -1)
"$b/webcache-load" --url-file "$tmp/warm.txt" --base "$base" --connections 6 --duration 1 --json > /dev/null
"$b/webcache-load" --url-file "$tmp/meas.txt" --base "$base" --connections 6 --duration 3 --json > "$pre.load.json"
kill -TERM $pid; wait $pid
(cd "$tree" && bin/tmkit report --no-plots "$pre.json") > "$pre.txt"
echo "profile $pre: $(cat "$pre.load.json")"
rm -rf "$tmp"

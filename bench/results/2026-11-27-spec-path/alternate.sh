#!/bin/sh
# Alternated timing: ROUNDS rounds, each running every configuration of $CONFIGS once, in order,
# for SECONDS each; prints "label ops_per_s=N" lines for summarize.py.
# CONFIGS: space-separated label:LIBDIR:ALGO:THREADS (ALGO "mutex": the program's -mutex build).
# Usage: CONFIGS="base:/tmp/base/lib:adaptive:2 new:build/lib:adaptive:2" \
#            alternate.sh ROUNDS SECONDS build/bin/hashset-tm --buckets 65536 ...
set -eu
R=$1; S=$2; prog=$3; shift 3
for r in $(seq 1 "$R"); do
    for c in $CONFIGS; do
        IFS=: read -r label lib algo t <<EOT
$c
EOT
        p=$prog
        [ "$algo" = mutex ] && p=$(echo "$prog" | sed 's/-tm$/-mutex/')
        printf "%s " "$label"
        TMKIT_ALGO=${algo#mutex} LD_LIBRARY_PATH=$lib "$p" "$@" --threads "$t" --seconds "$S" |
            grep -o "ops_per_s=[0-9]*"
    done
done

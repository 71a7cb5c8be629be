#!/bin/sh
# alternate.sh: paired timing of one bench program under several configurations (libraries,
# algorithms, thread counts, environment), alternated within each round so that a slow phase
# of the machine hits every configuration alike (bench/results/scaling/, fastpath/).
#
# Usage: CONFIGS="LABEL:LIBDIR:ALGO:THREADS[:VAR=VALUE,...] ..." \
#            bench/scripts/alternate.sh ROUNDS SECONDS PROGRAM [ARGS...] > runs.txt
#        bench/scripts/alternate_summary.py runs.txt [BASE_LABEL]
#   LIBDIR  a directory holding a libitm.so.1 (a tmkit build's lib/, or a base build's, for an
#           A/B of two revisions), or "system" for GCC's libitm (no LD_LIBRARY_PATH)
#   ALGO    the TMKIT_ALGO value; "mutex" runs PROGRAM's -mutex build instead; "-" leaves it unset
#   PROGRAM a bench program built for transactions, e.g. build/bin/micro-tm
#   VAR=VALUE  extra environment for that configuration, e.g. TMKIT_PRIVATIZATION=off
# Every TMKIT_* variable of the caller's environment is removed first.
# Example (orec_eager's disjoint writers, default privatization against none, 2 threads):
#   CONFIGS="default:build/lib:orec_eager:2 off:build/lib:orec_eager:2:TMKIT_PRIVATIZATION=off" \
#     bench/scripts/alternate.sh 7 0.5 build/bin/micro-tm --mode disjoint > runs.txt
# Writes to stdout one line per run: "LABEL ops_per_s=N".
set -eu
[ $# -ge 3 ] && [ -n "${CONFIGS:-}" ] || {
    echo "usage: CONFIGS=\"LABEL:LIBDIR:ALGO:THREADS[:VAR=V,...] ...\" $0 ROUNDS SECONDS PROGRAM [ARGS...]" >&2
    exit 2; }
R=$1; S=$2; prog=$3; shift 3
clean_env() { env | sed -n 's/^\(TMKIT_[A-Za-z0-9_]*\)=.*/-u \1/p' | tr '\n' ' '; }
for r in $(seq 1 "$R"); do
    for c in $CONFIGS; do
        IFS=: read -r label lib algo t extra <<EOT
$c
EOT
        p=$prog
        [ "$algo" = mutex ] && p=$(echo "$prog" | sed 's/-tm$/-mutex/')
        vars=""
        [ "$lib" != system ] && vars="LD_LIBRARY_PATH=$lib"
        case $algo in mutex|-) ;; *) vars="$vars TMKIT_ALGO=$algo" ;; esac
        [ -n "${extra:-}" ] && vars="$vars $(echo "$extra" | tr ',' ' ')"
        printf "%s " "$label"
        # shellcheck disable=SC2046,SC2086
        env $(clean_env) $vars "$p" "$@" --threads "$t" --seconds "$S" | grep -o "ops_per_s=[0-9]*"
    done
done

#!/bin/sh
# How much memory each orec covers (runtime/algo/orec.h: TM_OREC_SHIFT): the runtime as built
# (one orec per 8-byte word) against the same sources built with blocks of 2^SHIFT bytes, on the
# suite's programs, orec_eager, orec_lazy and the default, 1 and 2 threads, configurations
# interleaved (tmkit bench --with-runtime; the variant's configurations are named blockN-ALGO).
# Keeps the run in bench/results/orec-granularity/.
# Usage: bench/scripts/orec_granularity.sh [SHIFT [REPEATS]]   (defaults: 5, i.e. 32 bytes; 5)
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SHIFT=${1:-5}
REPEATS=${2:-5}
case $SHIFT in
    4|5|6|7) ;;
    *) echo "orec_granularity.sh: SHIFT must be 4-7 (16-128 bytes), not '$SHIFT'" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The variant: the same tree, each orec covering 2^SHIFT bytes (it exports no inline data).
cmake -S "$ROOT" -B "$tmp/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS="-DTM_OREC_SHIFT=$SHIFT" > "$tmp/cmake.log" || { cat "$tmp/cmake.log" >&2; exit 1; }
ninja -C "$tmp/build" itm > "$tmp/ninja.log" || { cat "$tmp/ninja.log" >&2; exit 1; }
v=block$((1 << SHIFT))
"$ROOT/bin/tmkit" bench micro ds bank lru --with-runtime "$v=$tmp/build/lib" \
    --configs "tmkit-orec_eager,tmkit-orec_lazy,tmkit-adaptive,$v-orec_eager,$v-orec_lazy,$v-adaptive" \
    --repeats "$REPEATS" --no-callgrind --experiment orec-granularity

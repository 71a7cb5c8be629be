#!/bin/sh
# tmkit advise end to end on a real program (label advise-real, `make test-real`: it downloads):
# Debian's memcached (default) or zstd (--program zstd) fetched, built, advised with --apply,
# built again with -fgnu-tm and run through its own tests on tmkit. tests/advise/e2e/main.py
# says what is checked; docs/advise.md, "Carrying a real program across: the end-to-end test".
# Usage: e2e.sh ROOT BUILD [--program P] [--algos A,B] [--threads 1,2] [--files F,G] [--jobs N]
#        [--bench]: then memcached's throughput and profile (bench/scripts/memcached_load.py) or
#        zstd's compression speed (bench/scripts/zstd_speed.py)
[ -n "$1" ] && [ -n "$2" ] || { echo "usage: e2e.sh ROOT BUILD [options] (--help)"; exit 2; }
exec python3 "$1/tests/advise/e2e/main.py" "$@"

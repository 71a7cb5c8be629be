#!/bin/sh
# tmkit advise on real servers and libraries as they come (label advise-real, `make test-real`:
# not part of `make test`, it downloads): Debian's source packages of memcached 1.6 and zstd
# 1.5 (multithreaded), configured and built under `bear` for compile_commands.json, then
# `tmkit advise -p .`. Both include the x86 SIMD headers and use atomics and heavy macros.
# Every file must parse (none skipped), sections must be found, and each run must take under
# a minute. Sources are cached in BUILD/advise-real/ and never committed.
ROOT=$1 BUILD=$2
W=$BUILD/advise-real
. "$ROOT/tests/debsrc.sh"
. "$ROOT/tests/advise/debfetch.sh"
debsrc_init "$W"
command -v bear >/dev/null || { echo "FAIL: bear missing (scripts/deps.sh installs it)"; exit 1; }
debsrc_fetch memcached "memcached-1.*"
debsrc_fetch libzstd "zstd-1.*"
MC=$(ls -d "$W"/memcached-1.* | head -1) ZS=$(ls -d "$W"/zstd-1.* | head -1)
[ -s "$MC/compile_commands.json" ] || (cd "$MC" && ./configure -q >/dev/null 2>&1 &&
    bear -- make -j2 >/dev/null 2>&1) || { echo "FAIL: building memcached (libevent-dev?)"; exit 1; }
[ -s "$ZS/compile_commands.json" ] || (cd "$ZS" && bear -- make -j2 -C lib libzstd.a \
    MOREFLAGS="-DZSTD_MULTITHREAD -pthread" >/dev/null 2>&1) || { echo "FAIL: building zstd"; exit 1; }
for d in "$MC" "$ZS"; do
    start=$(date +%s.%N)
    (cd "$d" && "$ROOT/bin/tmkit" advise -p . --json -o "$W/report.json") ||
        { echo "FAIL: advise on $d"; exit 1; }
    end=$(date +%s.%N)
    python3 - "$W/report.json" "$start" "$end" "$(basename "$d")" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
s = d["summary"]
print(f"{sys.argv[4]}: {s['lines']} lines, {s['functions']} functions, {s['sections']} sections "
      f"({s['pure']} pure, {s['hybrid']} hybrid, {s['non-revocable']} non-revocable), "
      f"{len(d['skipped'])} files skipped, {wall:.1f} s")
assert not d["skipped"], d["skipped"]
assert s["sections"] > 10 and s["lines"] > 20000 and wall < 60, s
PY
done
echo "real: ok"
